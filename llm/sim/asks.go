package sim

import (
	"encoding/json"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// asks reports whether a request asks for the answer field name: with
// structured output, when its JSON schema has that property; in text mode,
// when a line of the last user message starts with label + ":" (the
// labelled line the format asks for). The shared first answer asks for
// none of the fields behaviours add to it (FirstField); a protocol that
// adds one gets it answered.
func asks(req *llm.Request, name, label string) bool {
	if req.Schema != nil {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(req.Schema.Schema, &s) != nil {
			return false
		}
		_, ok := s.Properties[name]
		return ok
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != llm.RoleUser {
			continue
		}
		text := req.Messages[i].Content
		return strings.HasPrefix(text, label+":") || strings.Contains(text, "\n"+label+":")
	}
	return false
}
