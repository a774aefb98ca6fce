package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// Results implements batch.Provider: it reads the output file, then the
// error file, of a terminal batch and returns a Result per custom_id. A
// line that cannot be decoded at all (no custom_id to route it by) is
// skipped: its request is then among batch.Unfinished and goes out again.
// A line longer than the client's MaxResponseBytes is class oversize.
func (b *Batcher) Results(ctx context.Context, st batch.Status) (map[string]batch.Result, error) {
	if !st.State.Terminal() {
		return nil, b.badRequest("", fmt.Errorf("batch %s is %s, not finished", st.ID, st.State))
	}
	out := map[string]batch.Result{}
	for _, id := range []string{st.OutputFileID, st.ErrorFileID} {
		if id == "" {
			continue
		}
		if err := b.readFile(ctx, id, func(line []byte, cut bool) {
			r, rejected, err := parseOutputLine(line, cut, b.c.maxBody)
			if err != nil {
				return
			}
			b.finish(&r, rejected, st.Metadata)
			out[r.CustomID] = r
		}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// finish completes a parsed Result: provider, endpoint, redaction, and for
// a refused response format the downgrade of the modes the batch used.
func (b *Batcher) finish(r *batch.Result, rejected bool, meta map[string]string) {
	r.Response = b.c.redact.Response(r.Response)
	var e *llm.Error
	if !errors.As(r.Err, &e) {
		return
	}
	e.Provider, e.Endpoint = Provider, b.c.endpoint
	r.Err = b.c.redact.Error(e)
	if !rejected {
		return
	}
	var used map[string]string
	if json.Unmarshal([]byte(meta[MetaJSONModes]), &used) != nil || len(used) == 0 {
		return // the modes sent are unknown: nothing to downgrade from
	}
	for model, m := range used {
		for i, name := range modes {
			if name == m && i+1 < len(modes) {
				downgrade(b.c.modeSlot(model), int32(i))
				r.Resubmit = true
			}
		}
	}
}

// readFile streams file id's content line by line to fn; a line longer
// than the client's response cap is passed cut to the cap (cut true).
func (b *Batcher) readFile(ctx context.Context, id string, fn func(line []byte, cut bool)) error {
	ex := exchange{limit: b.maxFile}
	raw, err := b.c.api.GetFileContent(withExchange(ctx, &ex), id)
	if err != nil {
		return b.fail(ctx, "reading batch file "+id, err, ex)
	}
	defer raw.Close()
	r := bufio.NewReaderSize(raw, 64<<10)
	for {
		line, cut, err := readLine(r, b.c.maxBody)
		if len(bytes.TrimSpace(line)) > 0 {
			fn(line, cut)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return b.fail(ctx, "reading batch file "+id, err, ex)
		}
	}
}

// readLine reads one line (without its newline) of at most limit bytes; the
// rest of a longer line is read and dropped, and cut is true.
func readLine(r *bufio.Reader, limit int64) (line []byte, cut bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		room := limit - int64(len(line))
		if int64(len(frag)) > room {
			line = append(line, frag[:max(room, 0)]...)
			cut = true
		} else {
			line = append(line, frag...)
		}
		if err != bufio.ErrBufferFull {
			return line, cut, err
		}
	}
}

// outputLine is one line of a batch output or error file.
type outputLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

var customIDPattern = regexp.MustCompile(`"custom_id"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// parseOutputLine decodes one line of an output or error file into the
// Result of its custom_id, classified as Chat classifies (classifyStatus;
// Provider and Endpoint are left to the caller). rejected is true for a
// 400/422 refusing the response format. A cut line (longer than maxBody)
// is class oversize when its custom_id can be read. err is set only when
// the line names no custom_id.
func parseOutputLine(line []byte, cut bool, maxBody int64) (r batch.Result, rejected bool, err error) {
	if cut {
		m := customIDPattern.FindSubmatch(line)
		if m == nil {
			return r, false, errors.New("batch output line over the cap without a readable custom_id")
		}
		var id string
		if json.Unmarshal(append(append([]byte{'"'}, m[1]...), '"'), &id) != nil || id == "" {
			return r, false, errors.New("batch output line over the cap with an undecodable custom_id")
		}
		return batch.Result{CustomID: id, Response: llm.Response{Attempts: 1},
			Err: &llm.Error{Class: llm.ClassOversize, Err: llm.OversizeError(maxBody)}}, false, nil
	}
	var ol outputLine
	if err := json.Unmarshal(line, &ol); err != nil {
		return r, false, fmt.Errorf("batch output line: %w", err)
	}
	if ol.CustomID == "" {
		return r, false, errors.New("batch output line without a custom_id")
	}
	r.CustomID = ol.CustomID
	switch {
	case ol.Response != nil && ol.Response.StatusCode != 0:
		var e *llm.Error
		r.Response, e, rejected = answer(ol.Response.StatusCode, ol.Response.Body)
		if e != nil {
			r.Err = e
		}
	case ol.Error != nil:
		r.Err = lineError(ol.Error.Code, ol.Error.Message)
		r.Response.Attempts = 1 // in the batch's input file: the server received it
	default:
		r.Response.Attempts = 1
		r.Err = &llm.Error{Class: llm.ClassMalformed, Err: errors.New("batch output line with neither response nor error")}
	}
	return r, rejected, nil
}

// answer is the Response or classified error of a line's HTTP response.
func answer(status int, body json.RawMessage) (llm.Response, *llm.Error, bool) {
	resp := llm.Response{Attempts: 1}
	if status < 200 || status > 299 {
		var er goopenai.ErrorResponse
		ae := &goopenai.APIError{HTTPStatusCode: status, HTTPStatus: http.StatusText(status), Message: strings.TrimSpace(string(body))}
		if json.Unmarshal(body, &er) == nil && er.Error != nil {
			ae = er.Error
			ae.HTTPStatusCode, ae.HTTPStatus = status, http.StatusText(status)
		}
		_, msg := statusMessage(ae)
		return resp, &llm.Error{Class: classifyStatus(status, msg), Status: status, Err: ae}, rejectsFormat(ae)
	}
	var cr goopenai.ChatCompletionResponse
	if err := json.Unmarshal(body, &cr); err != nil {
		return resp, &llm.Error{Class: llm.ClassMalformed, Status: status, Err: fmt.Errorf("undecodable response body: %w", err)}, false
	}
	if len(cr.Choices) == 0 {
		return resp, &llm.Error{Class: llm.ClassMalformed, Status: status, Err: errNoChoices}, false
	}
	resp.Text = cr.Choices[0].Message.Content
	resp.FinishReason = string(cr.Choices[0].FinishReason)
	resp.ServedModel, resp.Refusal = cr.Model, cr.Choices[0].Message.Refusal
	resp.Usage = usage(cr.Usage, body)
	return resp, nil, false
}

// lineError classifies a line the provider reports with an error code and
// no HTTP response: batch_expired (expired, retryable) and batch_cancelled
// (canceled) — lines the provider received but never ran: attempts without
// tokens —, rate limits, server errors,
// timeouts and invalid requests by their codes; an unknown code is a
// server error (retryable: the caller's attempt limit bounds it).
func lineError(code, msg string) *llm.Error {
	c := strings.ToLower(code)
	err := fmt.Errorf("%s: %s", code, msg)
	switch {
	case c == "batch_expired" || strings.Contains(c, "expired"):
		return &llm.Error{Class: llm.ClassExpired, Err: fmt.Errorf("%w (%v)", batch.ErrExpired, err)}
	case strings.Contains(c, "cancel"):
		return &llm.Error{Class: llm.ClassCanceled, Err: fmt.Errorf("%w (%v)", batch.ErrCancelled, err)}
	case strings.Contains(c, "rate_limit"):
		return &llm.Error{Class: llm.ClassRateLimited, Status: http.StatusTooManyRequests, Err: err}
	case strings.Contains(c, "timeout"):
		return &llm.Error{Class: llm.ClassTimeout, Err: err}
	case strings.Contains(c, "invalid") || strings.Contains(c, "bad_request"):
		if llm.ContextLengthWording(msg) {
			return &llm.Error{Class: llm.ClassContextLength, Err: err}
		}
		return &llm.Error{Class: llm.ClassBadRequest, Err: err}
	}
	return &llm.Error{Class: llm.ClassServer, Err: err}
}
