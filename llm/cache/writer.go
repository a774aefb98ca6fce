package cache

import (
	"context"
	"sync"
	"time"
)

// Writer batching: a batch is committed when it holds writeBatch entries or
// writeDelay after its first entry, whichever comes first.
const (
	writeBatch = 64
	writeDelay = 20 * time.Millisecond
)

// writer commits stored answers to the file off the call path, in batches
// of one transaction each. Until committed, an entry is in Cache.pending,
// so this process hits it at once; other processes see it once committed.
// A crash loses at most the entries not yet committed (a batch: at most 64
// answers or 20 ms of them) — only cache entries, which the next run asks
// the model for again; the run's journal is a separate file, committed per
// unit, and never waits for the cache.
type writer struct {
	c       *Cache
	in      chan Entry
	flushes chan chan struct{}
	done    chan struct{}
	once    sync.Once
}

func newWriter(c *Cache) *writer {
	w := &writer{c: c, in: make(chan Entry, 4*writeBatch), flushes: make(chan chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

// queue adds e to the cache's memory and to the next batch.
func (w *writer) queue(e Entry) {
	w.c.mu.Lock()
	w.c.pending[e.Key] = e
	w.c.mu.Unlock()
	w.c.queued.Add(1)
	w.in <- e
}

// flush returns once every entry queued before it is committed.
func (w *writer) flush() {
	ack := make(chan struct{})
	select {
	case w.flushes <- ack:
		<-ack
	case <-w.done:
	}
}

// close commits what is queued and stops the writer.
func (w *writer) close() {
	w.once.Do(func() { close(w.in) })
	<-w.done
}

func (w *writer) loop() {
	defer close(w.done)
	var batch []Entry
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case e, ok := <-w.in:
			if !ok {
				w.commit(batch)
				return
			}
			if len(batch) == 0 {
				timer.Reset(writeDelay)
			}
			if batch = append(batch, e); len(batch) >= writeBatch {
				batch = w.commit(batch)
			}
		case <-timer.C:
			batch = w.commit(batch)
		case ack := <-w.flushes:
			batch = w.commit(w.drain(batch))
			close(ack)
		}
	}
}

// drain adds to batch the entries already in the channel.
func (w *writer) drain(batch []Entry) []Entry {
	for {
		select {
		case e, ok := <-w.in:
			if !ok {
				return batch
			}
			batch = append(batch, e)
		default:
			return batch
		}
	}
}

// commit writes batch in one transaction, then drops its entries from
// memory (they are in the file now, or, on an error, counted and lost to
// the cache only). It returns the emptied batch.
func (w *writer) commit(batch []Entry) []Entry {
	if len(batch) == 0 {
		return batch
	}
	c := w.c
	err := c.insertAll(batch)
	if err != nil {
		c.errs.Add(int64(len(batch)))
		c.unstored.Add(int64(len(batch)))
	}
	c.mu.Lock()
	for _, e := range batch {
		delete(c.pending, e.Key)
	}
	var warn func(int64, error)
	if err != nil && !c.warned && c.onWriteFailure != nil {
		c.warned, warn = true, c.onWriteFailure
	}
	c.mu.Unlock()
	if warn != nil {
		warn(int64(len(batch)), err)
	}
	return batch[:0]
}

// insertAll writes entries in one transaction.
func (c *Cache) insertAll(entries []Entry) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyTimeout*time.Millisecond)
	defer cancel()
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var n int64
	for _, e := range entries {
		wrote, err := c.insert(ctx, tx, e)
		if err != nil {
			tx.Rollback()
			return err
		}
		if wrote {
			n++
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	c.writes.Add(n)
	c.commits.Add(1)
	return nil
}
