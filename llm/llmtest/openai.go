package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// openaiChatRequest is the part of a chat completion request the fake
// server reads.
type openaiChatRequest struct {
	Model               string                `json:"model"`
	Messages            []openaiMessage       `json:"messages"`
	Temperature         *float64              `json:"temperature"`
	TopP                *float64              `json:"top_p"`
	MaxTokens           int                   `json:"max_tokens"`
	MaxCompletionTokens int                   `json:"max_completion_tokens"`
	Seed                *int64                `json:"seed"`
	Stream              bool                  `json:"stream"`
	ResponseFormat      *openaiResponseFormat `json:"response_format"`
}

// openaiMessage is a message whose content is a string or an array of parts.
type openaiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// openaiResponseFormat is a request's response_format.
type openaiResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	} `json:"json_schema"`
}

// contentText reads an OpenAI message content: a string or an array of parts.
func contentText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// openaiChat answers POST /v1/chat/completions: a chat.completion, or the
// error a server gives a request it cannot serve (unknown model, streaming,
// a response format it refuses, a prompt longer than the context).
func (s *Server) openaiChat(body []byte, variant FaultKind, suffix string) result {
	c, no := s.openaiCall(body)
	if no != nil {
		return s.refuse(no)
	}
	prompt := PromptTokens(c.Messages)
	if s.opts.ContextLength > 0 && prompt > s.opts.ContextLength {
		return s.fail(http.StatusBadRequest, fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.",
			s.opts.ContextLength, prompt), "")
	}
	return s.jsonResult(http.StatusOK, s.openaiAnswer(c, prompt, variant, suffix))
}

// openaiCall reads a chat completion request.
func (s *Server) openaiCall(body []byte) (Call, *refusal) {
	var req openaiChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return Call{}, badRequest("invalid JSON body: "+err.Error(), "")
	}
	model := s.model(req.Model)
	if model == "" {
		return Call{}, &refusal{status: http.StatusNotFound, code: "model_not_found",
			msg: fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)}
	}
	if req.Stream {
		return Call{}, badRequest("stream is not supported by this fake server", "")
	}
	c := Call{Flavor: FlavorOpenAI, Model: model}
	for _, m := range req.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return Call{}, badRequest("invalid message content: "+err.Error(), "")
		}
		c.Messages = append(c.Messages, llm.Message{Role: m.Role, Content: text})
	}
	if len(c.Messages) == 0 {
		return Call{}, badRequest("messages must not be empty", "")
	}
	if req.Seed != nil {
		c.Seed, c.HasSeed = *req.Seed, true
	}
	if req.Temperature != nil {
		c.Temperature, c.HasTemperature = *req.Temperature, true
	}
	c.MaxTokens = req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		c.MaxTokens = req.MaxCompletionTokens
	}
	if no := s.responseFormat(&c, req.ResponseFormat); no != nil {
		return Call{}, no
	}
	return c, nil
}

// responseFormat sets c.JSON and c.Schema from a response_format (nil:
// none), refusing a json_schema when ServerOptions.RejectJSONSchema says so.
func (s *Server) responseFormat(c *Call, rf *openaiResponseFormat) *refusal {
	if rf == nil {
		return nil
	}
	switch rf.Type {
	case "", "text":
	case "json_object":
		c.JSON = true
	case "json_schema":
		if s.opts.RejectJSONSchema {
			return badRequest("response_format type 'json_schema' is not supported by this server; use 'json_object'", "response_format")
		}
		if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
			return badRequest("response_format json_schema requires json_schema.schema", "response_format")
		}
		c.JSON, c.Schema = true, rf.JSONSchema.Schema
	default:
		return badRequest(fmt.Sprintf("unknown response_format type %q", rf.Type), "response_format")
	}
	return nil
}

// openaiAnswer is the chat.completion answering c, whose prompt is prompt
// tokens long, with the tokens served from the prompt cache when the
// server has one (ServerOptions.CacheRule); variant FaultNoUsage leaves out
// "usage" and FaultEmptyChoices empties "choices".
func (s *Server) openaiAnswer(c Call, prompt int, variant FaultKind, suffix string) map[string]any {
	text, finish := s.answer(c, suffix)
	cached := -1 // no cache: no cached count reported
	if s.cache != nil {
		cached = s.cache.Serve(c.Model, c.Messages, text)
	}
	resp := map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-%016x", c.Hash()),
		"object":             "chat.completion",
		"created":            0,
		"model":              c.Model,
		"system_fingerprint": "llmtest",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text},
			"finish_reason": finish,
		}},
	}
	if s.reportsUsage(variant) {
		comp := Tokens(text)
		u := map[string]any{"prompt_tokens": prompt, "completion_tokens": comp, "total_tokens": prompt + comp}
		if cached >= 0 {
			s.opts.CacheField.usageFields(u, prompt, cached)
		}
		resp["usage"] = u
	}
	if variant == FaultEmptyChoices {
		resp["choices"] = []any{}
	}
	return resp
}

// openaiModels answers GET /v1/models.
func (s *Server) openaiModels() result {
	data := make([]any, len(s.models))
	for i, m := range s.models {
		data[i] = map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "llmtest"}
	}
	return s.jsonResult(http.StatusOK, map[string]any{"object": "list", "data": data})
}
