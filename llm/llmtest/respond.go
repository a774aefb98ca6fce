package llmtest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/prefixcache"
)

// Call is what a fake server understood of one chat request.
type Call struct {
	Flavor         Flavor
	Model          string
	Messages       []llm.Message
	Seed           int64
	HasSeed        bool
	Temperature    float64
	HasTemperature bool
	MaxTokens      int // 0 when not set
	// JSON is true when structured output was asked for.
	JSON bool
	// Schema is the JSON schema asked for, nil for plain JSON mode or text.
	Schema json.RawMessage
}

// Hash is a 64-bit digest of the model, the messages and the seed: what
// DefaultRespond's answer depends on.
func (c Call) Hash() uint64 {
	h := sha256.New()
	put := func(s string) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
		h.Write(b[:])
		h.Write([]byte(s))
	}
	put(c.Model)
	for _, m := range c.Messages {
		put(m.Role)
		put(m.Content)
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(c.Seed))
	h.Write(b[:])
	return binary.LittleEndian.Uint64(h.Sum(nil))
}

// DefaultRespond answers with a letter A–E and a confidence derived from
// c.Hash(): a JSON object {"answer":"C","confidence":0.73} when c.JSON, a
// sentence otherwise.
func DefaultRespond(c Call) string {
	h := c.Hash()
	letter := string(rune('A' + h%5))
	conf := 0.5 + float64((h>>8)%50)/100
	if c.JSON {
		return fmt.Sprintf(`{"answer":%q,"confidence":%.2f}`, letter, conf)
	}
	return fmt.Sprintf("The most likely answer is %s, with confidence %.2f (ref %08x).", letter, conf, uint32(h>>32))
}

// Tokens is the fake servers' token count of a text: one token per four
// bytes, rounded up.
func Tokens(s string) int { return prefixcache.Tokens(s) }

// PromptTokens is the fake servers' token count of a prompt: Tokens of each
// message's content plus four per message.
func PromptTokens(msgs []llm.Message) int { return prefixcache.PromptTokens(msgs) }

// limitTokens cuts text to max tokens; it reports whether it did.
func limitTokens(text string, max int) (string, bool) {
	if max > 0 && Tokens(text) > max {
		return text[:max*4], true
	}
	return text, false
}

// answer is the text answering c (ServerOptions.Respond) with suffix
// appended, and why it ended: "length" when it was cut to c.MaxTokens,
// "stop" otherwise.
func (s *Server) answer(c Call, suffix string) (text, finish string) {
	text, cut := limitTokens(s.opts.Respond(c), c.MaxTokens)
	if cut {
		return text + suffix, "length"
	}
	return text + suffix, "stop"
}

// reportsUsage says whether an answer carries its token counts: not with
// ServerOptions.OmitUsage, nor when the fault variant is FaultNoUsage.
func (s *Server) reportsUsage(variant FaultKind) bool {
	return !s.opts.OmitUsage && variant != FaultNoUsage
}
