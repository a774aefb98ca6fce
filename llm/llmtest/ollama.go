package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

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

func (s *Server) ollamaNotFound(name string) result {
	return s.fail(http.StatusNotFound, fmt.Sprintf("model '%s' not found", name), "")
}

func optInt(opts map[string]any, key string) (int64, bool) {
	f, ok := opts[key].(float64)
	return int64(f), ok
}

func (s *Server) ollamaChat(body []byte, variant FaultKind, suffix string) result {
	var req ollamaChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return s.fail(http.StatusBadRequest, err.Error(), "")
	}
	if req.Model == "" {
		return s.fail(http.StatusBadRequest, "model is required", "")
	}
	model := s.model(req.Model)
	if model == "" {
		return s.ollamaNotFound(req.Model)
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
	switch f := strings.TrimSpace(string(req.Format)); {
	case f == "" || f == "null" || f == `""`:
	case f == `"json"`:
		c.JSON = true
	case strings.HasPrefix(f, "{"):
		c.JSON, c.Schema = true, json.RawMessage(f)
	default:
		return s.fail(http.StatusBadRequest, fmt.Sprintf("invalid format: %s", f), "")
	}
	limit := s.opts.ContextLength
	if n, ok := optInt(req.Options, "num_ctx"); ok && n > 0 {
		limit = int(n)
	}
	prompt := PromptTokens(c.Messages)
	if limit > 0 && prompt > limit {
		if req.Truncate != nil && !*req.Truncate {
			return s.fail(http.StatusBadRequest, "the input length exceeds the context length", "")
		}
		// Ollama's default: drop the oldest non-system messages.
		for prompt > limit {
			i := 0
			for i < len(c.Messages) && c.Messages[i].Role == llm.RoleSystem {
				i++
			}
			if i >= len(c.Messages)-1 {
				break
			}
			c.Messages = append(c.Messages[:i:i], c.Messages[i+1:]...)
			prompt = PromptTokens(c.Messages)
		}
		prompt = min(prompt, limit)
	}
	text, cut := limitTokens(s.opts.Respond(c), c.MaxTokens)
	text += suffix
	reason := "stop"
	if cut {
		reason = "length"
	}
	final := map[string]any{
		"model":          model,
		"created_at":     "2024-01-01T00:00:00Z",
		"message":        map[string]any{"role": "assistant", "content": text},
		"done":           true,
		"done_reason":    reason,
		"total_duration": 1000000,
	}
	if !s.opts.OmitUsage && variant != FaultNoUsage {
		final["prompt_eval_count"] = prompt
		final["eval_count"] = Tokens(text)
	}
	if variant == FaultEmptyChoices {
		delete(final, "message")
		return s.jsonResult(http.StatusOK, final)
	}
	if req.Stream == nil || *req.Stream {
		// Streaming (Ollama's default): two content chunks, then the final
		// message with the metrics and no content.
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
	return s.jsonResult(http.StatusOK, final)
}

// Digest is the digest the fake Ollama server reports for a model name.
func Digest(model string) string {
	d := sha256.Sum256([]byte(model))
	return fmt.Sprintf("%x", d)
}

func (s *Server) ollamaDetails() map[string]any {
	return map[string]any{"format": "gguf", "family": "llmtest", "parameter_size": "1B", "quantization_level": "Q4_0"}
}

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
		return s.ollamaNotFound(name)
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
