package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

type openaiChatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Temperature         *float64 `json:"temperature"`
	TopP                *float64 `json:"top_p"`
	MaxTokens           int      `json:"max_tokens"`
	MaxCompletionTokens int      `json:"max_completion_tokens"`
	Seed                *int64   `json:"seed"`
	Stream              bool     `json:"stream"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
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

func (s *Server) openaiChat(body []byte, variant FaultKind, suffix string) result {
	var req openaiChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return s.fail(http.StatusBadRequest, "invalid JSON body: "+err.Error(), "")
	}
	model := s.model(req.Model)
	if model == "" {
		return s.fail(http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model), "model_not_found")
	}
	if req.Stream {
		return s.fail(http.StatusBadRequest, "stream is not supported by this fake server", "")
	}
	c := Call{Flavor: FlavorOpenAI, Model: model}
	for _, m := range req.Messages {
		text, err := contentText(m.Content)
		if err != nil {
			return s.fail(http.StatusBadRequest, "invalid message content: "+err.Error(), "")
		}
		c.Messages = append(c.Messages, llm.Message{Role: m.Role, Content: text})
	}
	if len(c.Messages) == 0 {
		return s.fail(http.StatusBadRequest, "messages must not be empty", "")
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
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "", "text":
		case "json_object":
			c.JSON = true
		case "json_schema":
			if s.opts.RejectJSONSchema {
				return s.fail(http.StatusBadRequest, "response_format type 'json_schema' is not supported by this server; use 'json_object'", "response_format")
			}
			if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
				return s.fail(http.StatusBadRequest, "response_format json_schema requires json_schema.schema", "response_format")
			}
			c.JSON, c.Schema = true, rf.JSONSchema.Schema
		default:
			return s.fail(http.StatusBadRequest, fmt.Sprintf("unknown response_format type %q", rf.Type), "response_format")
		}
	}
	prompt := PromptTokens(c.Messages)
	if s.opts.ContextLength > 0 && prompt > s.opts.ContextLength {
		return s.fail(http.StatusBadRequest, fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, your request has %d input tokens. Please reduce the length of the input messages.",
			s.opts.ContextLength, prompt), "")
	}
	text, cut := limitTokens(s.opts.Respond(c), c.MaxTokens)
	text += suffix
	finish := "stop"
	if cut {
		finish = "length"
	}
	resp := map[string]any{
		"id":                 fmt.Sprintf("chatcmpl-%016x", c.Hash()),
		"object":             "chat.completion",
		"created":            0,
		"model":              model,
		"system_fingerprint": "llmtest",
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text},
			"finish_reason": finish,
		}},
	}
	if !s.opts.OmitUsage && variant != FaultNoUsage {
		comp := Tokens(text)
		resp["usage"] = map[string]int{"prompt_tokens": prompt, "completion_tokens": comp, "total_tokens": prompt + comp}
	}
	if variant == FaultEmptyChoices {
		resp["choices"] = []any{}
	}
	return s.jsonResult(http.StatusOK, resp)
}

func (s *Server) openaiModels() result {
	data := make([]any, len(s.models))
	for i, m := range s.models {
		data[i] = map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "llmtest"}
	}
	return s.jsonResult(http.StatusOK, map[string]any{"object": "list", "data": data})
}
