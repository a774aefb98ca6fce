package batchmode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
)

// submitTagged submits a chunk in journaled steps (batch.Tagger): the
// uploaded file and a fresh tag are journaled as pending before the batch
// is created with the tag in its metadata, then the batch replaces the
// pending entry. A creation whose outcome is unknown (its reply lost) is
// looked for by its tag before its lines may be sent again.
func (c *Collector) submitTagged(ctx context.Context, tg batch.Tagger, pj PendingJournal, chunk []batch.Line, ids []string) (batch.Ref, error) {
	tag, err := newTag(c.cfg.TagPrefix)
	if err != nil {
		return batch.Ref{}, &llm.Error{Class: llm.ClassInternal, Unsent: true, Err: err}
	}
	journaled := false
	ref, err := tg.SubmitTagged(ctx, chunk, tag, func(fileID string) error {
		if err := pj.SavePending(tag, fileID, ids); err != nil {
			return &llm.Error{Class: llm.ClassInternal, Unsent: true, Err: fmt.Errorf("journaling the batch of file %s (not created): %w", fileID, err)}
		}
		journaled = true
		return nil
	})
	if err != nil && journaled { // created or not? the provider's list says
		st, found, lerr := c.findTag(ctx, tag)
		switch {
		case lerr != nil:
			return ref, &llm.Error{Class: llm.ClassInternal, Err: fmt.Errorf("%w; and listing the batches to see whether batch tag %s was created: %v (the rerun looks again)", err, tag, lerr)}
		case found:
			ref.ID, ref.InputFileID, err = st.ID, st.InputFileID, nil
		default:
			_ = pj.DropPending(tag)
			return ref, err
		}
	}
	if err != nil {
		return ref, err
	}
	if jerr := c.cfg.Journal.SaveBatch(ref.ID, ref.InputFileID, ids); jerr != nil {
		_, _ = c.cfg.Provider.Cancel(ctx, ref.ID) // not journaled: it must not run unseen
		return ref, &llm.Error{Class: llm.ClassInternal, Err: fmt.Errorf("journaling batch %s (cancelled it): %w", ref.ID, jerr)}
	}
	_ = pj.DropPending(tag) // journaled: a leftover entry is found as journaled
	return ref, nil
}

// adoptPending looks at the provider for each batch the journal has as
// pending (created, perhaps, by a run killed before it journaled it): one
// found by its tag is journaled and awaited like the others; one not found
// was never created, and its lines are sent as usual.
func (c *Collector) adoptPending(ctx context.Context) error {
	pj, ok := c.cfg.Journal.(PendingJournal)
	if !ok {
		return nil
	}
	type pending struct {
		tag, file string
		ids       []string
	}
	var ps []pending
	if err := pj.LoadPending(func(tag, file string, ids []string) { ps = append(ps, pending{tag, file, ids}) }); err != nil {
		return fmt.Errorf("batch mode: reading the journal's pending batches: %w", err)
	}
	if len(ps) == 0 {
		return nil
	}
	list, err := c.cfg.Provider.List(ctx)
	if err != nil {
		return fmt.Errorf("batch mode: %d batches may have been created by the killed run but not journaled; listing the provider's batches to find them failed (rerun when the provider answers): %w", len(ps), err)
	}
	byTag := map[string]batch.Status{}
	for _, st := range list {
		if t := st.Metadata[batch.MetaTag]; t != "" {
			if _, seen := byTag[t]; !seen { // newest first
				byTag[t] = st
			}
		}
	}
	for _, p := range ps {
		st, found := byTag[p.tag]
		if found {
			if err := c.cfg.Journal.SaveBatch(st.ID, p.file, p.ids); err != nil {
				return fmt.Errorf("batch mode: journaling adopted batch %s: %w", st.ID, err)
			}
			for _, h := range p.ids {
				c.known[h] = st.ID
			}
			c.stats.Adopted++
		}
		if err := pj.DropPending(p.tag); err != nil {
			return fmt.Errorf("batch mode: %w", err)
		}
	}
	return nil
}

// findTag looks for the batch of tag in the provider's list.
func (c *Collector) findTag(ctx context.Context, tag string) (batch.Status, bool, error) {
	list, err := c.cfg.Provider.List(ctx)
	if err != nil {
		return batch.Status{}, false, err
	}
	for _, st := range list {
		if st.Metadata[batch.MetaTag] == tag {
			return st, true, nil
		}
	}
	return batch.Status{}, false, nil
}

// newTag is a client tag of a batch: prefix (TagPrefix, or "mt-") and a
// random part.
func newTag(prefix string) (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("batch tag: %w", err)
	}
	if prefix == "" {
		prefix = "mt-"
	}
	return prefix + hex.EncodeToString(b[:]), nil
}

// TagPrefix is the tag prefix of the batches of the run whose plan hash is
// planHash.
func TagPrefix(planHash string) string {
	return "mt-" + planHash[:min(12, len(planHash))] + "-"
}
