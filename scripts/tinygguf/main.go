// Command tinygguf writes a tiny, randomly initialised llama-architecture model
// as a GGUF v3 file, for end-to-end tests against a real inference server
// (scripts/e2e-ollama.sh registers it with Ollama as "tiny").
//
// The model is noise by design, but shaped so that a server treats it like
// any llama model:
//
//   - a SentencePiece ("llama") vocabulary: <unk>, <s>, </s>, the 256 byte
//     tokens <0x00>…<0xFF>, "▁", printable ASCII characters with and without
//     a leading "▁", a few common non-ASCII characters, and whole-word
//     pieces for a list of common English and clinical words (see words.go),
//     each with all its prefixes so that the server's merge-based tokenizer
//     (it merges two symbols only when their concatenation is a piece) reaches
//     the whole word. Word-initial ("▁word") chains score above word-internal
//     ones, so they always merge first. This keeps medteam's long prompts
//     around one token per word instead of one per byte;
//   - a large context (-ctx, default 32768): the KV cache of a model this
//     narrow is small, so long prompts are cheap;
//   - seeded weights (a splitmix64 stream, uniform values; no math library
//     calls, so the bytes do not depend on the platform or Go version);
//   - a constant channel: dimension 0 of every token embedding is a large
//     constant that no layer writes to, so after the final norm it is always
//     large and positive. The output layer's weight on that channel is
//     negative for control, byte and single-character tokens and positive for
//     word pieces, so the model never emits end-of-sequence: every unconstrained
//     answer is exactly num_predict printable word tokens.
//
// Same flags, same bytes.
//
// Usage:
//
//	go run ./scripts/tinygguf -out tiny.gguf [-seed 1] [-ctx 32768] [-layers 2] [-width 64] [-heads 4] [-ff 128]
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Config is the model's shape.
type Config struct {
	Seed    uint64
	Ctx     int // llama.context_length
	Layers  int
	Width   int // embedding length
	Heads   int
	KVHeads int
	FF      int // feed-forward length
	Words   int // how many entries of the word list become pieces (-1 = all)
	Name    string
}

// GGUF value types.
const (
	typeUint8   = 0
	typeInt8    = 1
	typeUint16  = 2
	typeInt16   = 3
	typeUint32  = 4
	typeInt32   = 5
	typeFloat32 = 6
	typeBool    = 7
	typeString  = 8
	typeArray   = 9
	typeUint64  = 10
	typeInt64   = 11
	typeFloat64 = 12
)

// GGML tensor types used here.
const ggmlF32 = 0

// Alignment of tensor data (general.alignment).
const Alignment = 32

// Token types of the llama vocabulary.
const (
	tokNormal  = 1
	tokUnknown = 2
	tokControl = 3
	tokByte    = 6
)

// Special token ids.
const (
	unkID = 0
	bosID = 1
	eosID = 2
)

// Token is one vocabulary entry.
type Token struct {
	Text  string
	Score float32
	Type  int32
}

// KV is one metadata entry. Value is uint32, int32, uint64, float32, bool,
// string, []string, []float32 or []int32.
type KV struct {
	Key   string
	Value any
}

// Tensor is one f32 tensor; Dims are GGML's ne (innermost first).
type Tensor struct {
	Name string
	Dims []uint64
	Data []float32
}

// Model is everything written to the file, in file order.
type Model struct {
	KVs     []KV
	Tensors []Tensor
}

// spaceMark is SentencePiece's word-boundary mark (U+2581).
const spaceMark = "\u2581"

// extraChars are non-ASCII characters common in clinical text; without a
// piece they would cost two or three byte tokens each.
var extraChars = []string{"’", "‘", "“", "”", "°", "–", "—", "μ", "×", "±", "≥", "≤", "→", "•", "é"}

// Vocab builds the vocabulary: specials, bytes, characters, then word pieces.
func Vocab(nWords int) []Token {
	toks := []Token{
		{"<unk>", 0, tokUnknown},
		{"<s>", 0, tokControl},
		{"</s>", 0, tokControl},
	}
	for b := 0; b < 256; b++ {
		toks = append(toks, Token{fmt.Sprintf("<0x%02X>", b), 0, tokByte})
	}
	seen := map[string]bool{}
	add := func(text string, score float32) {
		if seen[text] {
			return
		}
		seen[text] = true
		toks = append(toks, Token{text, score, tokNormal})
	}
	add(spaceMark, -1000)
	for c := byte('!'); c <= '~'; c++ {
		add(string(rune(c)), -1000)
	}
	for _, c := range extraChars {
		add(c, -1000)
	}
	// A space before a character that starts no listed word ("▁B", "▁(",
	// "▁9") would otherwise cost a token of its own.
	for c := byte('!'); c <= '~'; c++ {
		add(spaceMark+string(rune(c)), -0.5)
	}
	ws := words
	if nWords >= 0 && nWords < len(ws) {
		ws = ws[:nWords]
	}
	// Word-initial chains ("▁p", "▁pa", … "▁patient") score in (-1, 0]
	// (like the "▁c" pieces above),
	// word-internal chains ("pa", … "patient") in (-11, -10]: every
	// word-initial merge wins over every word-internal one. Within a class
	// earlier (more useful) words score higher.
	n := 0
	for _, prefix := range []string{spaceMark, ""} {
		base := float32(0)
		if prefix == "" {
			base = -10
		}
		for _, w := range ws {
			full := []rune(prefix + w)
			for i := 2; i <= len(full); i++ {
				n++
				add(string(full[:i]), base-float32(n)/float32(1<<20))
			}
		}
	}
	return toks
}

// isWordPiece reports whether a token is a multi-character normal piece.
func isWordPiece(t Token) bool {
	return t.Type == tokNormal && len([]rune(t.Text)) > 1
}

// rng is splitmix64: a tiny, fully specified generator.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// uniform returns a value uniform in [-a, a).
func (r *rng) uniform(a float64) float32 {
	u := float64(r.next()>>11) / float64(1<<53) // [0, 1)
	return float32((2*u - 1) * a)
}

func (r *rng) fill(n int, a float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = r.uniform(a)
	}
	return out
}

func ones(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// Bias-channel constants (see the package comment).
const (
	channelValue = 8.0  // embedding value on dimension 0
	embedScale   = 1.7  // other embedding values: uniform in ±embedScale (std ≈ 1)
	wordBias     = 0.5  // output weight on dimension 0 for word pieces
	charBias     = -1.0 // … for single characters
	bannedBias   = -4.0 // … for control, unknown and byte tokens
)

// Build returns the model for c.
func Build(c Config) (*Model, error) {
	headDim, err := c.check()
	if err != nil {
		return nil, err
	}
	toks := Vocab(c.Words)
	m := &Model{KVs: metadata(c, headDim, toks)}
	r := &rng{s: c.Seed}
	d, nv := c.Width, len(toks)
	// Token embeddings: row t (d values) is token t's vector.
	emb := r.fill(d*nv, embedScale)
	for t := 0; t < nv; t++ {
		emb[t*d] = channelValue
	}
	m.Tensors = append(m.Tensors, Tensor{"token_embd.weight", []uint64{uint64(d), uint64(nv)}, emb})
	for l := 0; l < c.Layers; l++ {
		m.Tensors = append(m.Tensors, layer(r, l, d, headDim*c.KVHeads, c.FF)...)
	}
	m.Tensors = append(m.Tensors, Tensor{"output_norm.weight", []uint64{uint64(d)}, ones(d)})
	m.Tensors = append(m.Tensors, Tensor{"output.weight", []uint64{uint64(d), uint64(nv)}, output(r, toks, d)})
	return m, nil
}

// check validates the shape, defaults KVHeads to Heads and returns the
// dimension of a head.
func (c *Config) check() (headDim int, err error) {
	if c.Layers < 1 || c.Width < 8 || c.Heads < 1 || c.FF < 1 || c.Ctx < 16 {
		return 0, errors.New("need -layers ≥ 1, -width ≥ 8, -heads ≥ 1, -ff ≥ 1, -ctx ≥ 16")
	}
	if c.KVHeads == 0 {
		c.KVHeads = c.Heads
	}
	if c.Width%c.Heads != 0 || c.Heads%c.KVHeads != 0 {
		return 0, errors.New("-width must be a multiple of -heads, and -heads a multiple of -kvheads")
	}
	headDim = c.Width / c.Heads
	if headDim%2 != 0 {
		return 0, errors.New("-width / -heads must be even (rotary embedding)")
	}
	return headDim, nil
}

// metadata is the model's key-value section: the llama hyperparameters of c
// and the vocabulary toks.
func metadata(c Config, headDim int, toks []Token) []KV {
	nv := len(toks)
	texts := make([]string, nv)
	scores := make([]float32, nv)
	types := make([]int32, nv)
	for i, t := range toks {
		texts[i], scores[i], types[i] = t.Text, t.Score, t.Type
	}
	name := c.Name
	if name == "" {
		name = "tiny"
	}
	return []KV{
		{"general.architecture", "llama"},
		{"general.name", name},
		{"general.alignment", uint32(Alignment)},
		{"general.file_type", uint32(0)}, // all f32
		{"llama.context_length", uint32(c.Ctx)},
		{"llama.embedding_length", uint32(c.Width)},
		{"llama.block_count", uint32(c.Layers)},
		{"llama.feed_forward_length", uint32(c.FF)},
		{"llama.attention.head_count", uint32(c.Heads)},
		{"llama.attention.head_count_kv", uint32(c.KVHeads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(headDim)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(nv)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", texts},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.bos_token_id", uint32(bosID)},
		{"tokenizer.ggml.eos_token_id", uint32(eosID)},
		{"tokenizer.ggml.unknown_token_id", uint32(unkID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}

// linBound is the uniform bound for weights of std 1/sqrt(in).
func linBound(in int) float64 { return math.Sqrt(3.0 / float64(in)) }

// layer draws the tensors of block l (width d, key/value width dkv,
// feed-forward length ff) from r, in file order.
func layer(r *rng, l, d, dkv, ff int) []Tensor {
	p := fmt.Sprintf("blk.%d.", l)
	attnOut := r.fill(d*d, linBound(d))
	ffnDown := r.fill(ff*d, linBound(ff))
	// Output row 0 of the residual writers is zero: nothing changes the
	// constant channel.
	for i := 0; i < d; i++ {
		attnOut[i] = 0
	}
	for i := 0; i < ff; i++ {
		ffnDown[i] = 0
	}
	return []Tensor{
		{p + "attn_norm.weight", []uint64{uint64(d)}, ones(d)},
		{p + "attn_q.weight", []uint64{uint64(d), uint64(d)}, r.fill(d*d, linBound(d))},
		{p + "attn_k.weight", []uint64{uint64(d), uint64(dkv)}, r.fill(d*dkv, linBound(d))},
		{p + "attn_v.weight", []uint64{uint64(d), uint64(dkv)}, r.fill(d*dkv, linBound(d))},
		{p + "attn_output.weight", []uint64{uint64(d), uint64(d)}, attnOut},
		{p + "ffn_norm.weight", []uint64{uint64(d)}, ones(d)},
		{p + "ffn_gate.weight", []uint64{uint64(d), uint64(ff)}, r.fill(d*ff, linBound(d))},
		{p + "ffn_down.weight", []uint64{uint64(ff), uint64(d)}, ffnDown},
		{p + "ffn_up.weight", []uint64{uint64(d), uint64(ff)}, r.fill(d*ff, linBound(d))},
	}
}

// output draws the output layer's weights (row t is token t's) from r, with
// the constant channel's weight set by the kind of token (see the package
// comment).
func output(r *rng, toks []Token, d int) []float32 {
	out := r.fill(d*len(toks), 0.3)
	for t, tok := range toks {
		switch {
		case isWordPiece(tok):
			out[t*d] = wordBias
		case tok.Type == tokNormal:
			out[t*d] = charBias
		default:
			out[t*d] = bannedBias
		}
	}
	return out
}

// Params counts the model's weights.
func (m *Model) Params() int {
	n := 0
	for _, t := range m.Tensors {
		n += len(t.Data)
	}
	return n
}

// writer accumulates little-endian GGUF encodings and the first error.
type writer struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (w *writer) bytes(b []byte) {
	if w.err != nil {
		return
	}
	k, err := w.w.Write(b)
	w.n += int64(k)
	w.err = err
}

func (w *writer) u32(v uint32) { w.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *writer) u64(v uint64) { w.bytes(binary.LittleEndian.AppendUint64(nil, v)) }
func (w *writer) f32(v float32) {
	w.u32(math.Float32bits(v))
}
func (w *writer) str(s string) { w.u64(uint64(len(s))); w.bytes([]byte(s)) }
func (w *writer) pad() {
	if r := w.n % Alignment; r != 0 {
		w.bytes(make([]byte, Alignment-r))
	}
}

func (w *writer) value(v any) {
	switch v := v.(type) {
	case uint32:
		w.u32(typeUint32)
		w.u32(v)
	case int32:
		w.u32(typeInt32)
		w.u32(uint32(v))
	case uint64:
		w.u32(typeUint64)
		w.u64(v)
	case float32:
		w.u32(typeFloat32)
		w.f32(v)
	case bool:
		w.u32(typeBool)
		if v {
			w.bytes([]byte{1})
		} else {
			w.bytes([]byte{0})
		}
	case string:
		w.u32(typeString)
		w.str(v)
	case []string:
		w.u32(typeArray)
		w.u32(typeString)
		w.u64(uint64(len(v)))
		for _, s := range v {
			w.str(s)
		}
	case []float32:
		w.u32(typeArray)
		w.u32(typeFloat32)
		w.u64(uint64(len(v)))
		for _, f := range v {
			w.f32(f)
		}
	case []int32:
		w.u32(typeArray)
		w.u32(typeInt32)
		w.u64(uint64(len(v)))
		for _, x := range v {
			w.u32(uint32(x))
		}
	default:
		if w.err == nil {
			w.err = fmt.Errorf("gguf: unsupported metadata value %T", v)
		}
	}
}

// alignUp rounds n up to a multiple of Alignment.
func alignUp(n uint64) uint64 { return (n + Alignment - 1) / Alignment * Alignment }

// WriteGGUF writes m as GGUF v3: header, metadata, tensor infos, padding to
// the alignment, then each tensor's data at an aligned offset.
func WriteGGUF(out io.Writer, m *Model) error {
	w := &writer{w: bufio.NewWriter(out)}
	w.bytes([]byte("GGUF"))
	w.u32(3)
	w.u64(uint64(len(m.Tensors)))
	w.u64(uint64(len(m.KVs)))
	for _, kv := range m.KVs {
		w.str(kv.Key)
		w.value(kv.Value)
	}
	var off uint64
	for _, t := range m.Tensors {
		n := uint64(1)
		for _, d := range t.Dims {
			n *= d
		}
		if n != uint64(len(t.Data)) {
			return fmt.Errorf("gguf: tensor %s: dims %v hold %d values, data has %d", t.Name, t.Dims, n, len(t.Data))
		}
		w.str(t.Name)
		w.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			w.u64(d)
		}
		w.u32(ggmlF32)
		w.u64(off)
		off = alignUp(off + 4*n)
	}
	w.pad()
	for _, t := range m.Tensors {
		buf := make([]byte, 0, 4*len(t.Data))
		for _, f := range t.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		w.bytes(buf)
		w.pad()
	}
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

func main() {
	var c Config
	var seed int64
	out := flag.String("out", "tiny.gguf", "output file")
	flag.Int64Var(&seed, "seed", 1, "weight seed")
	flag.IntVar(&c.Ctx, "ctx", 32768, "llama.context_length (the largest num_ctx a server may use)")
	flag.IntVar(&c.Layers, "layers", 2, "transformer blocks")
	flag.IntVar(&c.Width, "width", 64, "embedding length")
	flag.IntVar(&c.Heads, "heads", 4, "attention heads")
	flag.IntVar(&c.KVHeads, "kvheads", 0, "key/value heads (0 = -heads)")
	flag.IntVar(&c.FF, "ff", 128, "feed-forward length")
	flag.IntVar(&c.Words, "words", -1, "word-list entries that become vocabulary pieces (-1 = all)")
	flag.StringVar(&c.Name, "name", "tiny", "general.name")
	quiet := flag.Bool("q", false, "print nothing on success")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "tinygguf: unexpected arguments:", strings.Join(flag.Args(), " "))
		os.Exit(2)
	}
	c.Seed = uint64(seed)
	if err := run(c, *out, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "tinygguf:", err)
		os.Exit(1)
	}
}

func run(c Config, out string, quiet bool) error {
	m, err := Build(c)
	if err != nil {
		return err
	}
	// Write beside the target and rename, so a reader never sees half a file.
	tmp, err := os.CreateTemp(filepath.Dir(out), ".tinygguf-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteGGUF(tmp, m); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	if !quiet {
		st, err := os.Stat(out)
		if err != nil {
			return err
		}
		nv := len(Vocab(c.Words))
		fmt.Printf("wrote %s: llama, %d layers, width %d, %d heads, ff %d, ctx %d, vocab %d, %d parameters, %d bytes\n",
			out, c.Layers, c.Width, c.Heads, c.FF, c.Ctx, nv, m.Params(), st.Size())
	}
	return nil
}
