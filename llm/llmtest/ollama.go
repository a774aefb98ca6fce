package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// ollamaChatRequest is the part of an /api/chat request the fake server
// reads.
type ollamaChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Stream   *bool           `json:"stream"`
	Format   json.RawMessage `json:"format"`
	Options  map[string]any  `json:"options"`
	Truncate *bool           `json:"truncate"`
}

// ollamaNotFound is Ollama's refusal of a model it does not have.
func ollamaNotFound(name string) *refusal {
	return &refusal{status: http.StatusNotFound, msg: fmt.Sprintf("model '%s' not found", name)}
}

// optInt reads a number from a request's options.
func optInt(opts map[string]any, key string) (int64, bool) {
	f, ok := opts[key].(float64)
	return int64(f), ok
}

// ollamaChat answers POST /api/chat: the final message (streamed as
// newline-delimited JSON unless the request says stream:false), or the error
// Ollama gives a request it cannot serve (no or an unknown model, an invalid
// format, a prompt longer than the context under truncate:false).
func (s *Server) ollamaChat(body []byte, variant FaultKind, suffix string) result {
	var req ollamaChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return s.fail(http.StatusBadRequest, err.Error(), "")
	}
	c, no := s.ollamaCall(&req)
	if no != nil {
		return s.refuse(no)
	}
	prompt, no := s.ollamaContext(&c, &req)
	if no != nil {
		return s.refuse(no)
	}
	text, reason := s.answer(c, suffix)
	final := map[string]any{
		"model":          c.Model,
		"created_at":     "2024-01-01T00:00:00Z",
		"message":        map[string]any{"role": "assistant", "content": text},
		"done":           true,
		"done_reason":    reason,
		"total_duration": 1000000,
	}
	if s.reportsUsage(variant) {
		final["prompt_eval_count"] = prompt
		final["eval_count"] = Tokens(text)
	}
	if variant == FaultEmptyChoices {
		delete(final, "message")
		return s.jsonResult(http.StatusOK, final)
	}
	if req.Stream == nil || *req.Stream {
		return ollamaStream(c.Model, text, final)
	}
	return s.jsonResult(http.StatusOK, final)
}

// ollamaCall reads an /api/chat request.
func (s *Server) ollamaCall(req *ollamaChatRequest) (Call, *refusal) {
	if req.Model == "" {
		return Call{}, badRequest("model is required", "")
	}
	model := s.model(req.Model)
	if model == "" {
		return Call{}, ollamaNotFound(req.Model)
	}
	c := Call{Flavor: FlavorOllama, Model: model}
	for _, m := range req.Messages {
		c.Messages = append(c.Messages, llm.Message{Role: m.Role, Content: m.Content})
	}
	if seed, ok := optInt(req.Options, "seed"); ok {
		c.Seed, c.HasSeed = seed, true
	}
	if t, ok := req.Options["temperature"].(float64); ok {
		c.Temperature, c.HasTemperature = t, true
	}
	if n, ok := optInt(req.Options, "num_predict"); ok && n > 0 {
		c.MaxTokens = int(n)
	}
	if no := ollamaFormat(&c, req.Format); no != nil {
		return Call{}, no
	}
	return c, nil
}

// ollamaFormat sets c.JSON and c.Schema from a request's format: none,
// "json", or a schema.
func ollamaFormat(c *Call, format json.RawMessage) *refusal {
	switch f := strings.TrimSpace(string(format)); {
	case f == "" || f == "null" || f == `""`:
	case f == `"json"`:
		c.JSON = true
	case strings.HasPrefix(f, "{"):
		c.JSON, c.Schema = true, json.RawMessage(f)
	default:
		return badRequest(fmt.Sprintf("invalid format: %s", f), "")
	}
	return nil
}

// ollamaContext fits c's prompt into the context (the request's
// options.num_ctx, else ServerOptions.ContextLength; none when ≤ 0) and
// returns its length in tokens. A longer prompt is refused when the request
// says truncate:false; otherwise its oldest non-system messages are dropped,
// as Ollama does, and its length is counted as at most the context.
func (s *Server) ollamaContext(c *Call, req *ollamaChatRequest) (int, *refusal) {
	limit := s.opts.ContextLength
	if n, ok := optInt(req.Options, "num_ctx"); ok && n > 0 {
		limit = int(n)
	}
	prompt := PromptTokens(c.Messages)
	if limit <= 0 || prompt <= limit {
		return prompt, nil
	}
	if req.Truncate != nil && !*req.Truncate {
		return 0, badRequest("the input length exceeds the context length", "")
	}
	c.Messages = dropOldest(c.Messages, limit)
	return min(PromptTokens(c.Messages), limit), nil
}

// dropOldest drops the oldest non-system messages of msgs until they fit in
// limit tokens or only the last message is left after the system ones.
func dropOldest(msgs []llm.Message, limit int) []llm.Message {
	for PromptTokens(msgs) > limit {
		i := 0
		for i < len(msgs) && msgs[i].Role == llm.RoleSystem {
			i++
		}
		if i >= len(msgs)-1 {
			break
		}
		msgs = append(msgs[:i:i], msgs[i+1:]...)
	}
	return msgs
}

// ollamaStream is a streamed answer, as Ollama streams by default: two
// content chunks of text, then the final message with the metrics and no
// content.
func ollamaStream(model, text string, final map[string]any) result {
	var b []byte
	half := len(text) / 2
	for _, part := range []string{text[:half], text[half:]} {
		line, _ := json.Marshal(map[string]any{
			"model": model, "created_at": "2024-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": part}, "done": false,
		})
		b = append(append(b, line...), '\n')
	}
	final["message"] = map[string]any{"role": "assistant", "content": ""}
	line, _ := json.Marshal(final)
	b = append(append(b, line...), '\n')
	return result{status: http.StatusOK, header: http.Header{"Content-Type": {"application/x-ndjson"}}, body: b}
}

// Digest is the digest the fake Ollama server reports for a model name.
func Digest(model string) string {
	d := sha256.Sum256([]byte(model))
	return fmt.Sprintf("%x", d)
}

// ollamaDetails are the details Ollama reports of every served model.
func (s *Server) ollamaDetails() map[string]any {
	return map[string]any{"format": "gguf", "family": "llmtest", "parameter_size": "1B", "quantization_level": "Q4_0"}
}

// ollamaTags answers GET /api/tags: the served models.
func (s *Server) ollamaTags() result {
	models := make([]any, len(s.models))
	for i, m := range s.models {
		models[i] = map[string]any{
			"name": m, "model": m, "modified_at": "2024-01-01T00:00:00Z",
			"size": 1 << 30, "digest": Digest(m), "details": s.ollamaDetails(),
		}
	}
	return s.jsonResult(http.StatusOK, map[string]any{"models": models})
}

// ollamaShow answers POST /api/show: a model's details, with its context
// length when ServerOptions.ContextLength is set.
func (s *Server) ollamaShow(body []byte) result {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return s.fail(http.StatusBadRequest, err.Error(), "")
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	model := s.model(name)
	if model == "" {
		return s.refuse(ollamaNotFound(name))
	}
	info := map[string]any{"general.architecture": "llmtest"}
	if s.opts.ContextLength > 0 {
		info["llmtest.context_length"] = s.opts.ContextLength
	}
	return s.jsonResult(http.StatusOK, map[string]any{
		"details": s.ollamaDetails(), "model_info": info,
		"modified_at": "2024-01-01T00:00:00Z", "capabilities": []string{"completion"},
	})
}
