package llm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"strings"
)

// RequestHash is a content address of everything that determines a model's
// answer: model, messages, sampling parameters, seed and schema. It leaves out
// the call metadata, so identical prompts in different arms hash the same.
func RequestHash(req Request) string {
	return requestHash(req)
}

// HashOf is req's RequestHash: req.Meta.RequestHash when a layer above
// computed it, else computed now and recorded in req.Meta for the layers
// below. A layer that changes a request's content must clear it.
func HashOf(req *Request) string {
	if req.Meta.RequestHash == "" {
		req.Meta.RequestHash = requestHash(*req)
	}
	return req.Meta.RequestHash
}

func requestHash(req Request) string {
	h := sha256.New()
	writeStr(h, req.Model)
	for _, m := range req.Messages {
		writeStr(h, m.Role)
		writeStr(h, m.Content)
	}
	var b [8]byte
	for _, v := range []uint64{math.Float64bits(req.Temperature), math.Float64bits(req.TopP), uint64(req.MaxTokens), uint64(req.Seed)} {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	if req.Schema != nil {
		writeStr(h, req.Schema.Name)
		writeStr(h, string(req.Schema.Schema))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeStr(h hash.Hash, s string) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(len(s)))
	h.Write(b[:])
	h.Write([]byte(s))
}

// RenderMessages renders messages as "role: content" blocks for transcripts.
func RenderMessages(msgs []Message) string {
	var sb strings.Builder
	for i, m := range msgs {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString("[")
		sb.WriteString(m.Role)
		sb.WriteString("]\n")
		sb.WriteString(m.Content)
	}
	return sb.String()
}
