package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// retryable marks a transfer error after which another attempt (resuming
// the part file) may succeed.
type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// download fetches src into part: a part file left by an earlier transfer
// is continued with a Range request, and an interrupted transfer is tried
// again (resuming) up to Attempts times. The part file of a transfer that
// still fails is kept for the next run.
func (x *Fetcher) download(ctx context.Context, f File, src, part string) error {
	attempts := x.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	var err error
	for range attempts {
		err = x.transfer(ctx, f, src, part)
		var r retryable
		if err == nil || !errors.As(err, &r) || ctx.Err() != nil {
			break
		}
	}
	if err == nil {
		return nil
	}
	if _, serr := os.Stat(part); serr == nil {
		return fmt.Errorf("%s from %s: %w (the partial file %s is kept: run the command again to resume)", f.Path, src, err, part)
	}
	return fmt.Errorf("%s from %s: %w", f.Path, src, err)
}

// transfer makes one request for the rest of part and appends the body to
// it (or rewrites it when the server ignores the range). A body that ends
// cleanly is complete as far as the server goes: Verify decides.
func (x *Fetcher) transfer(ctx context.Context, f File, src, part string) error {
	have := fileSize(part)
	if have > f.Size { // not a prefix of the pinned file
		os.Remove(part)
		have = 0
	}
	if have == f.Size && have > 0 {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return err
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	client := x.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return retryable{err}
	}
	defer resp.Body.Close()
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0 && rangeStart(resp.Header.Get("Content-Range")) == have:
	case resp.StatusCode == http.StatusOK: // a server that ignores Range sends it all again
		have, flag = 0, flag|os.O_TRUNC
	case resp.StatusCode == http.StatusPartialContent || resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part) // a range we did not ask for, or one refused: start over
		return retryable{fmt.Errorf("HTTP %s for bytes %d-: restarting from the beginning", resp.Status, have)}
	default:
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return x.receive(f, src, part, flag, have, resp.Body)
}

// receive writes body to part (opened with flag), starting at byte have.
func (x *Fetcher) receive(f File, src, part string, flag int, have int64, body io.Reader) error {
	out, err := os.OpenFile(part, flag, 0o644)
	if err != nil {
		return err
	}
	w := io.Writer(out)
	if x.NewBar != nil {
		bar := x.NewBar(f, src, have)
		defer bar.Done()
		w = io.MultiWriter(out, bar)
	}
	// One byte more than pinned is enough to refuse an oversized body.
	n, err := io.Copy(w, io.LimitReader(body, f.Size-have+1))
	if cerr := out.Close(); err == nil && cerr != nil {
		return cerr
	}
	if err != nil {
		return retryable{fmt.Errorf("transfer interrupted after %d of %d bytes: %w", have+n, f.Size, err)}
	}
	return nil
}

// rangeStart reads the first byte of a Content-Range header
// ("bytes 100-199/200"); -1 when it is not one.
func rangeStart(h string) int64 {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return -1
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(start, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
