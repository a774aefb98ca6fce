package llm

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// Wire tells whether an HTTP request reached the wire, so a backend can say
// how many requests a call really sent (Response.Attempts) and mark a call
// whose request never left as Unsent. Use one per HTTP request:
//
//	w := llm.NewWire()
//	req = req.WithContext(w.Trace(req.Context()))
//	resp, err := hc.Do(req)
//	sent := resp != nil || w.Sent()
//
// It is exact over an HTTP/1 connection made by a CountingTransport: a
// request counts as sent when bytes were written to the socket after the
// connection was handed to it. (httptrace's WroteRequest alone is not
// enough: net/http reports it before flushing its write buffer, so a call
// canceled at that moment may have sent nothing.) Over other connections it
// falls back to WroteRequest.
type Wire struct {
	mu       sync.Mutex
	conn     *countingConn // nil when not obtained or not countable
	start    int64         // conn's bytes written when it was handed over
	gotConn  bool
	wrote    bool // WroteRequest without error
	answered bool // the first response byte arrived
	done     chan struct{}
	once     sync.Once
}

// NewWire returns a tracker for one request.
func NewWire() *Wire { return &Wire{done: make(chan struct{})} }

// Trace returns ctx carrying the client trace that feeds w.
func (w *Wire) Trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			cc := countable(info.Conn)
			w.mu.Lock()
			w.gotConn = true
			if cc != nil {
				w.conn, w.start = cc, cc.written.Load()
			}
			w.mu.Unlock()
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			w.mu.Lock()
			if info.Err == nil {
				w.wrote = true
			}
			w.mu.Unlock()
			w.once.Do(func() { close(w.done) })
		},
		GotFirstResponseByte: func() {
			w.mu.Lock()
			w.answered = true
			w.mu.Unlock()
		},
	})
}

// wireWait bounds how long Sent waits for a write in progress to settle.
const wireWait = 200 * time.Millisecond

// Sent reports whether the request reached the socket (or an answer
// arrived). Call it once the round trip has returned. A write still in
// progress — a call canceled just then — is waited for, at most 200 ms: on a
// counting connection until bytes were written or the connection closed,
// otherwise until WroteRequest.
func (w *Wire) Sent() bool {
	w.mu.Lock()
	answered, got, cc, start := w.answered, w.gotConn, w.conn, w.start
	w.mu.Unlock()
	switch {
	case answered:
		return true
	case !got:
		return false
	case cc != nil:
		if cc.written.Load() > start {
			return true
		}
		t := time.NewTimer(wireWait)
		defer t.Stop()
		for {
			select {
			case <-cc.changed:
			case <-t.C:
				return cc.written.Load() > start
			}
			if cc.written.Load() > start || cc.closed.Load() {
				return cc.written.Load() > start
			}
		}
	}
	t := time.NewTimer(wireWait)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wrote || w.answered
}

// IdleConnsPerHost is how many idle keep-alive connections the transport of
// one endpoint keeps (Go's default keeps 2, so at 64 calls in flight most
// calls would open a new TCP connection, and TLS handshake, of their own).
const IdleConnsPerHost = 256

// CountingTransport returns a clone of base (of http.DefaultTransport when
// nil) whose connections count the bytes written to them, which lets a Wire
// tell a request flushed to the socket from one that never left. When base
// is nil, its idle pool keeps IdleConnsPerHost connections to the endpoint,
// so connections are reused at any concurrency the limiter allows.
func CountingTransport(base *http.Transport) *http.Transport {
	sized := base == nil
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	t := base.Clone()
	if sized {
		t.MaxIdleConnsPerHost = IdleConnsPerHost
		t.MaxIdleConns = 2 * IdleConnsPerHost
	}
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, changed: make(chan struct{}, 1)}, nil
	}
	return t
}

// countingConn counts the bytes written to a connection.
type countingConn struct {
	net.Conn
	written atomic.Int64
	closed  atomic.Bool
	changed chan struct{} // signalled (without blocking) on every write and on close
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.written.Add(int64(n))
		c.signal()
	}
	return n, err
}

func (c *countingConn) Close() error {
	err := c.Conn.Close()
	c.closed.Store(true)
	c.signal()
	return err
}

func (c *countingConn) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// countable returns the counting connection under conn, nil when there is
// none or it is shared by several requests (HTTP/2).
func countable(conn net.Conn) *countingConn {
	if tc, ok := conn.(*tls.Conn); ok {
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			return nil
		}
		conn = tc.NetConn()
	}
	cc, _ := conn.(*countingConn)
	return cc
}
