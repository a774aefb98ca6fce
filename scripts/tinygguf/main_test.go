package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ---- a tiny, independent GGUF reader ----

type ggufFile struct {
	version   uint32
	kv        map[string]any
	kvOrder   []string
	tensors   []tensorInfo
	dataStart int64
	size      int64
	raw       []byte
}

type tensorInfo struct {
	name   string
	dims   []uint64
	typ    uint32
	offset uint64
}

type reader struct {
	b   []byte
	pos int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	if n < 0 || r.pos+n > len(r.b) {
		r.err = fmt.Errorf("read %d bytes at %d: past end (%d)", n, r.pos, len(r.b))
		return make([]byte, max(n, 0))
	}
	out := r.b[r.pos : r.pos+n]
	r.pos += n
	return out
}

func (r *reader) u8() uint8   { return r.take(1)[0] }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) str() string {
	n := r.u64()
	if n > 1<<20 {
		r.err = fmt.Errorf("string length %d at %d", n, r.pos)
		return ""
	}
	return string(r.take(int(n)))
}

func (r *reader) value(typ uint32) any {
	switch typ {
	case typeUint8:
		return r.u8()
	case typeInt8:
		return int8(r.u8())
	case typeUint16:
		return binary.LittleEndian.Uint16(r.take(2))
	case typeInt16:
		return int16(binary.LittleEndian.Uint16(r.take(2)))
	case typeUint32:
		return r.u32()
	case typeInt32:
		return int32(r.u32())
	case typeFloat32:
		return math.Float32frombits(r.u32())
	case typeBool:
		return r.u8() != 0
	case typeString:
		return r.str()
	case typeUint64:
		return r.u64()
	case typeInt64:
		return int64(r.u64())
	case typeFloat64:
		return math.Float64frombits(r.u64())
	case typeArray:
		et := r.u32()
		n := r.u64()
		if n > 1<<24 {
			r.err = fmt.Errorf("array length %d", n)
			return nil
		}
		out := make([]any, n)
		for i := range out {
			out[i] = r.value(et)
		}
		return out
	}
	r.err = fmt.Errorf("unknown value type %d at %d", typ, r.pos)
	return nil
}

func parseGGUF(b []byte) (*ggufFile, error) {
	r := &reader{b: b}
	if string(r.take(4)) != "GGUF" {
		return nil, fmt.Errorf("bad magic")
	}
	f := &ggufFile{version: r.u32(), kv: map[string]any{}, size: int64(len(b)), raw: b}
	nt, nkv := r.u64(), r.u64()
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		k := r.str()
		if _, dup := f.kv[k]; dup {
			return nil, fmt.Errorf("duplicate key %q", k)
		}
		f.kv[k] = r.value(r.u32())
		f.kvOrder = append(f.kvOrder, k)
	}
	for i := uint64(0); i < nt && r.err == nil; i++ {
		ti := tensorInfo{name: r.str()}
		nd := r.u32()
		if nd > 4 {
			return nil, fmt.Errorf("tensor %s: %d dims", ti.name, nd)
		}
		for j := uint32(0); j < nd; j++ {
			ti.dims = append(ti.dims, r.u64())
		}
		ti.typ = r.u32()
		ti.offset = r.u64()
		f.tensors = append(f.tensors, ti)
	}
	if r.err != nil {
		return nil, r.err
	}
	align := int64(32)
	if a, ok := f.kv["general.alignment"].(uint32); ok {
		align = int64(a)
	}
	f.dataStart = (int64(r.pos) + align - 1) / align * align
	return f, nil
}

func (t tensorInfo) elems() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

func (f *ggufFile) tensor(t *testing.T, name string) (tensorInfo, []float32) {
	t.Helper()
	for _, ti := range f.tensors {
		if ti.name == name {
			start := f.dataStart + int64(ti.offset)
			raw := f.raw[start : start+int64(4*ti.elems())]
			out := make([]float32, ti.elems())
			for i := range out {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
			return ti, out
		}
	}
	t.Fatalf("no tensor %s", name)
	return tensorInfo{}, nil
}

func u32kv(t *testing.T, f *ggufFile, k string) uint32 {
	t.Helper()
	v, ok := f.kv[k].(uint32)
	if !ok {
		t.Fatalf("%s: %T, want uint32", k, f.kv[k])
	}
	return v
}

// ---- tests ----

func writeModel(t *testing.T, c Config) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := run(c, path, true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

var defaultConfig = Config{Seed: 1, Ctx: 32768, Layers: 2, Width: 64, Heads: 4, FF: 128, Words: -1}

func TestWriteAndParse(t *testing.T) {
	for _, c := range []Config{
		defaultConfig,
		{Seed: 7, Ctx: 4096, Layers: 3, Width: 32, Heads: 2, KVHeads: 1, FF: 48, Words: 10},
	} {
		t.Run(fmt.Sprintf("layers%d_width%d", c.Layers, c.Width), func(t *testing.T) {
			_, b := writeModel(t, c)
			f, err := parseGGUF(b)
			if err != nil {
				t.Fatal(err)
			}
			if f.version != 3 {
				t.Errorf("version %d", f.version)
			}
			if f.kv["general.architecture"] != "llama" || f.kv["tokenizer.ggml.model"] != "llama" {
				t.Errorf("architecture %v, tokenizer %v", f.kv["general.architecture"], f.kv["tokenizer.ggml.model"])
			}
			if f.kvOrder[0] != "general.architecture" {
				t.Errorf("first key %q", f.kvOrder[0])
			}
			kvHeads := c.KVHeads
			if kvHeads == 0 {
				kvHeads = c.Heads
			}
			for k, want := range map[string]int{
				"llama.context_length": c.Ctx, "llama.embedding_length": c.Width, "llama.block_count": c.Layers,
				"llama.feed_forward_length": c.FF, "llama.attention.head_count": c.Heads,
				"llama.attention.head_count_kv": kvHeads, "llama.rope.dimension_count": c.Width / c.Heads,
				"general.alignment": 32,
			} {
				if got := u32kv(t, f, k); int(got) != want {
					t.Errorf("%s = %d, want %d", k, got, want)
				}
			}
			if eps, ok := f.kv["llama.attention.layer_norm_rms_epsilon"].(float32); !ok || eps <= 0 {
				t.Errorf("rms epsilon %v", f.kv["llama.attention.layer_norm_rms_epsilon"])
			}

			// Vocabulary arrays agree in length, specials and bytes are in place.
			toks, _ := f.kv["tokenizer.ggml.tokens"].([]any)
			scores, _ := f.kv["tokenizer.ggml.scores"].([]any)
			types, _ := f.kv["tokenizer.ggml.token_type"].([]any)
			nv := int(u32kv(t, f, "llama.vocab_size"))
			if len(toks) != nv || len(scores) != nv || len(types) != nv {
				t.Fatalf("vocab %d: tokens %d, scores %d, types %d", nv, len(toks), len(scores), len(types))
			}
			seen := map[string]bool{}
			for i, tok := range toks {
				s := tok.(string)
				if seen[s] {
					t.Errorf("duplicate token %q", s)
				}
				seen[s] = true
				if _, ok := scores[i].(float32); !ok {
					t.Fatalf("score %d: %T", i, scores[i])
				}
			}
			bos, eos, unk := u32kv(t, f, "tokenizer.ggml.bos_token_id"), u32kv(t, f, "tokenizer.ggml.eos_token_id"), u32kv(t, f, "tokenizer.ggml.unknown_token_id")
			if toks[bos] != "<s>" || toks[eos] != "</s>" || toks[unk] != "<unk>" {
				t.Errorf("specials: bos %q eos %q unk %q", toks[bos], toks[eos], toks[unk])
			}
			if types[bos] != int32(tokControl) || types[eos] != int32(tokControl) || types[unk] != int32(tokUnknown) {
				t.Errorf("special types %v %v %v", types[bos], types[eos], types[unk])
			}
			for b := 0; b < 256; b++ {
				if want := fmt.Sprintf("<0x%02X>", b); toks[3+b] != want || types[3+b] != int32(tokByte) {
					t.Fatalf("token %d = %q (type %v), want byte %s", 3+b, toks[3+b], types[3+b], want)
				}
			}
			if f.kv["tokenizer.ggml.add_bos_token"] != true {
				t.Error("add_bos_token not true")
			}

			// Tensor infos: count, names, shapes, aligned and disjoint data.
			if want := 3 + 9*c.Layers; len(f.tensors) != want {
				t.Fatalf("%d tensors, want %d", len(f.tensors), want)
			}
			if f.dataStart%32 != 0 {
				t.Errorf("data starts at %d", f.dataStart)
			}
			var end uint64
			names := map[string]bool{}
			for i, ti := range f.tensors {
				if names[ti.name] {
					t.Errorf("duplicate tensor %s", ti.name)
				}
				names[ti.name] = true
				if ti.typ != ggmlF32 {
					t.Errorf("%s: type %d", ti.name, ti.typ)
				}
				if ti.offset%32 != 0 {
					t.Errorf("%s: offset %d not aligned", ti.name, ti.offset)
				}
				if i > 0 && ti.offset < end {
					t.Errorf("%s: offset %d overlaps the previous tensor (ends %d)", ti.name, ti.offset, end)
				}
				end = ti.offset + 4*ti.elems()
				if int64(end)+f.dataStart > f.size {
					t.Errorf("%s: data ends at %d, file has %d bytes", ti.name, int64(end)+f.dataStart, f.size)
				}
			}
			if got, want := f.size, f.dataStart+int64(alignUp(end)); got != want {
				t.Errorf("file size %d, want %d", got, want)
			}
			dkv := c.Width / c.Heads * kvHeads
			shapes := map[string][]uint64{
				"token_embd.weight":        {uint64(c.Width), uint64(nv)},
				"output.weight":            {uint64(c.Width), uint64(nv)},
				"output_norm.weight":       {uint64(c.Width)},
				"blk.0.attn_k.weight":      {uint64(c.Width), uint64(dkv)},
				"blk.0.ffn_down.weight":    {uint64(c.FF), uint64(c.Width)},
				"blk.0.ffn_gate.weight":    {uint64(c.Width), uint64(c.FF)},
				"blk.0.attn_output.weight": {uint64(c.Width), uint64(c.Width)},
			}
			shapes[fmt.Sprintf("blk.%d.ffn_up.weight", c.Layers-1)] = []uint64{uint64(c.Width), uint64(c.FF)}
			for name, want := range shapes {
				ti, _ := f.tensor(t, name)
				if !slices.Equal(ti.dims, want) {
					t.Errorf("%s: dims %v, want %v", name, ti.dims, want)
				}
			}

			// The constant channel and the output bias are really in the data.
			_, emb := f.tensor(t, "token_embd.weight")
			_, out := f.tensor(t, "output.weight")
			_, ao := f.tensor(t, "blk.0.attn_output.weight")
			_, fd := f.tensor(t, "blk.0.ffn_down.weight")
			for tok := 0; tok < nv; tok++ {
				if emb[tok*c.Width] != channelValue {
					t.Fatalf("token %d: channel %v", tok, emb[tok*c.Width])
				}
				bias := out[tok*c.Width]
				if tok < 3+256 && bias != bannedBias {
					t.Fatalf("token %d (%q): output bias %v", tok, toks[tok], bias)
				}
			}
			if !allZero(ao[:c.Width]) || !allZero(fd[:c.FF]) || allZero(ao[c.Width:2*c.Width]) {
				t.Error("residual writers must leave dimension 0 alone (and only it)")
			}
			for _, v := range emb {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatal("non-finite weight")
				}
			}
		})
	}
}

func allZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

func TestDeterministic(t *testing.T) {
	_, a := writeModel(t, defaultConfig)
	_, b := writeModel(t, defaultConfig)
	if !bytes.Equal(a, b) {
		t.Fatal("same flags, different bytes")
	}
	other := defaultConfig
	other.Seed = 2
	_, c := writeModel(t, other)
	if bytes.Equal(a, c) {
		t.Fatal("another seed, same bytes")
	}
	if len(a) != len(c) {
		t.Fatal("the seed changed the layout")
	}
}

func TestBuildRejectsBadShapes(t *testing.T) {
	for _, c := range []Config{
		{Ctx: 4096, Layers: 0, Width: 64, Heads: 4, FF: 128},
		{Ctx: 4096, Layers: 2, Width: 64, Heads: 5, FF: 128},
		{Ctx: 4096, Layers: 2, Width: 64, Heads: 4, KVHeads: 3, FF: 128},
		{Ctx: 4096, Layers: 2, Width: 12, Heads: 4, FF: 128}, // odd head dim
	} {
		if _, err := Build(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// mergeAll tokenizes symbols like SentencePiece's merge (as llama.cpp's
// "llama" tokenizer does): repeatedly merge the adjacent pair whose
// concatenation is a piece with the highest score (leftmost on ties); symbols
// left without a piece fall back to byte tokens.
func mergeAll(score map[string]float32, syms []string) []string {
	for {
		best, bi := float32(math.Inf(-1)), -1
		for i := 0; i+1 < len(syms); i++ {
			if s, ok := score[syms[i]+syms[i+1]]; ok && s > best {
				best, bi = s, i
			}
		}
		if bi < 0 {
			break
		}
		merged := syms[bi] + syms[bi+1]
		syms = append(append(syms[:bi:bi], merged), syms[bi+2:]...)
	}
	var out []string
	for _, s := range syms {
		if _, ok := score[s]; ok {
			out = append(out, s)
			continue
		}
		for _, b := range []byte(s) {
			out = append(out, fmt.Sprintf("<0x%02X>", b))
		}
	}
	return out
}

func TestWordsTokenizeAsWholePieces(t *testing.T) {
	vocab := Vocab(-1)
	score := map[string]float32{}
	for _, tok := range vocab {
		if tok.Type == tokNormal {
			score[tok.Text] = tok.Score
		}
	}
	tokenize := func(text string) []string {
		text = spaceMark + strings.ReplaceAll(text, " ", spaceMark)
		var syms []string
		for _, r := range text {
			syms = append(syms, string(r))
		}
		return mergeAll(score, syms)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"the patient is most likely", []string{"▁the", "▁patient", "▁is", "▁most", "▁likely"}},
		{"QUESTION:\nThe", []string{"▁QUESTION", ":", "<0x0A>", "The"}},
		{"zq 98.2°F (B)", []string{"▁z", "q", "▁9", "8", ".", "2", "°", "F", "▁(", "B", ")"}},
		{"Ωx", []string{"▁", "<0xCE>", "<0xA9>", "x"}},
	} {
		if got := tokenize(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q → %q, want %q", tc.text, got, tc.want)
		}
	}
	// Every listed word is one piece, at the start of a word or of a line.
	for _, w := range words {
		if got := tokenize(w); len(got) != 1 {
			t.Errorf("%q → %q", w, got)
		}
		if got := mergeAll(score, strings.Split(w, "")); len(got) != 1 {
			t.Errorf("line-initial %q → %q", w, got)
		}
	}
}

func TestMainWritesFile(t *testing.T) {
	path, _ := writeModel(t, defaultConfig)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	head := make([]byte, 8)
	if _, err := io.ReadFull(fh, head); err != nil {
		t.Fatal(err)
	}
	if string(head[:4]) != "GGUF" || binary.LittleEndian.Uint32(head[4:]) != 3 {
		t.Fatalf("header %q", head)
	}
	if st, _ := fh.Stat(); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
}
