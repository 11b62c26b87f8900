package knowledge

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
)

// Bounds of semantic search (docs/SPEC.md#lookup_knowledge).
const (
	// MaxVectorSections is how many section vectors one search compares
	// with the query (brute force, lowest section ids first) and how many a
	// sync embeds in all: 20,000 vectors of 1,024 dimensions are 80 MB read
	// as a stream, one row at a time, and about 20 M multiplications
	// (BenchmarkNearest20k: about 85 ms on one core of an EPYC).
	MaxVectorSections = 20000
	// EmbedBatch is how many sections one /api/embed call carries.
	EmbedBatch = 32
	// EmbedTextBytes bounds the text embedded per section (heading path,
	// then body), so one call stays within any model's context.
	EmbedTextBytes = 2048
	// RRFK is the k of reciprocal rank fusion: a section's fused score is
	// the sum over the BM25 and vector rankings of 1/(RRFK + rank).
	RRFK = 60
	// MinCosine is the similarity a section needs to enter the vector
	// ranking, so a query about nothing in the runbooks still finds nothing.
	MinCosine = 0.5
)

// Embedding is what Sync did about vectors when an embedding model is set.
type Embedding struct {
	// Model is the configured embedding model.
	Model string `json:"model"`
	// Embedded sections got a vector in this Sync.
	Embedded int `json:"embedded"`
	// Missing sections still have no vector (the model failed, or the
	// index holds more than MaxVectorSections); the next Sync retries them.
	Missing int `json:"missing"`
	// Error is why embedding stopped, "" when it did not fail.
	Error string `json:"error,omitempty"`
}

// WithEmbedder makes ix embed sections with the embedding model name
// through e at Sync and fuse vector and BM25 rankings at Search. Without it
// (or when e fails) search is BM25 only.
func (ix *Index) WithEmbedder(name string, e model.Embedder) *Index {
	ix.embedName, ix.embedder = name, e
	return ix
}

// embedText is what a section is embedded as (and a query is compared with).
func embedText(title, body string) string {
	return textclip.BytePrefix(title+"\n\n"+body, EmbedTextBytes)
}

// embedMissing embeds, in batches, the sections that have no vector of the
// configured model, dropping vectors of any other model first. A model
// failure stops it and is reported in the result, never as an error: the
// sections stay without vectors and are retried by the next Sync.
func (ix *Index) embedMissing(ctx context.Context) (*Embedding, error) {
	out := &Embedding{Model: ix.embedName}
	if _, err := ix.db.ExecContext(ctx, `DELETE FROM kb_vectors WHERE model <> ?`, ix.embedName); err != nil {
		return nil, fmt.Errorf("drop vectors of another embedding model: %w", err)
	}
	// after is the last section id handed to the model: every batch moves
	// past it, so the loop ends even if a vector were not stored.
	var after int64
	for {
		var have int
		if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors`).Scan(&have); err != nil {
			return nil, fmt.Errorf("count section vectors: %w", err)
		}
		room := min(EmbedBatch, MaxVectorSections-have)
		if room <= 0 {
			break
		}
		ids, texts, err := ix.unembedded(ctx, after, room)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			break
		}
		after = ids[len(ids)-1]
		vecs, err := ix.embedder.Embed(ctx, texts)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, fmt.Errorf("embed runbook sections: %w", ctxErr)
			}
			out.Error = egress.Mask(err.Error()).String()
			break
		}
		// The answer's shape and dimension bound are the Embedder's
		// contract, which the adapters enforce as they decode it.
		if err := ix.storeVectors(ctx, ids, vecs); err != nil {
			return nil, err
		}
		out.Embedded += len(ids)
	}
	err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM kb_sections s
		WHERE NOT EXISTS (SELECT 1 FROM kb_vectors v WHERE v.section_id = s.id)`).Scan(&out.Missing)
	if err != nil {
		return nil, fmt.Errorf("count sections without vectors: %w", err)
	}
	return out, nil
}

// unembedded reads up to n sections past id after without a vector,
// lowest id first.
func (ix *Index) unembedded(ctx context.Context, after int64, n int) ([]int64, []string, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT s.id, s.title, s.body FROM kb_sections s
		WHERE s.id > ? AND NOT EXISTS (SELECT 1 FROM kb_vectors v WHERE v.section_id = s.id)
		ORDER BY s.id LIMIT ?`, after, n)
	if err != nil {
		return nil, nil, fmt.Errorf("read sections to embed: %w", err)
	}
	defer rows.Close()
	var ids []int64
	var texts []string
	for rows.Next() {
		var id int64
		var title, body string
		if err := rows.Scan(&id, &title, &body); err != nil {
			return nil, nil, fmt.Errorf("read sections to embed: %w", err)
		}
		ids = append(ids, id)
		texts = append(texts, embedText(title, body))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read sections to embed: %w", err)
	}
	return ids, texts, nil
}

// storeVectors writes one batch of vectors in a transaction.
func (ix *Index) storeVectors(ctx context.Context, ids []int64, vecs [][]float32) error {
	if len(vecs) != len(ids) {
		return fmt.Errorf("store section vectors: %d vectors for %d sections", len(vecs), len(ids))
	}
	return ix.inTx(ctx, "store section vectors", func(tx *sql.Tx) error {
		for i, id := range ids {
			_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO kb_vectors(section_id, model, dim, vec) VALUES(?, ?, ?, ?)`,
				id, ix.embedName, len(vecs[i]), encodeVector(vecs[i]))
			if err != nil {
				return fmt.Errorf("store vector of section %d: %w", id, err)
			}
		}
		return nil
	})
}

// encodeVector is the stored form: little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// cosine is the cosine similarity of q (with norm qn) and the stored vector
// b of the same dimension; 0 for a zero vector.
func cosine(q []float32, qn float64, b []byte) float64 {
	var dot, bn float64
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		dot += float64(x) * y
		bn += y * y
	}
	if qn == 0 || bn == 0 {
		return 0
	}
	return dot / (qn * math.Sqrt(bn))
}

// scored is one section in the vector ranking.
type scored struct {
	id  int64
	sim float64
}

// nearest ranks, by cosine similarity to the query vector, at most
// MaxVectorSections stored vectors of the configured model and dimension
// and returns the best n with at least MinCosine; ok is false when the
// index holds no vector to compare with.
func (ix *Index) nearest(ctx context.Context, q []float32, n int) (best []scored, ok bool, err error) {
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	rows, err := ix.db.QueryContext(ctx, `SELECT section_id, vec FROM kb_vectors
		WHERE model = ? AND dim = ? ORDER BY section_id LIMIT ?`, ix.embedName, len(q), MaxVectorSections)
	if err != nil {
		return nil, false, fmt.Errorf("read section vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s scored
		var b sql.RawBytes // valid until Next: no copy of the vector
		if err := rows.Scan(&s.id, &b); err != nil {
			return nil, false, fmt.Errorf("read section vectors: %w", err)
		}
		ok = true
		if len(b) != 4*len(q) {
			continue
		}
		if s.sim = cosine(q, qn, b); s.sim < MinCosine {
			continue
		}
		best = append(best, s)
		if len(best) >= 2*n {
			best = topScored(best, n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read section vectors: %w", err)
	}
	return topScored(best, n), ok, nil
}

// topScored keeps the n most similar, best first (ties: lower id).
func topScored(s []scored, n int) []scored {
	sort.Slice(s, func(i, j int) bool {
		if s[i].sim != s[j].sim {
			return s[i].sim > s[j].sim
		}
		return s[i].id < s[j].id
	})
	return s[:min(n, len(s))]
}

// fused ranks the BM25 candidates lex (best first) and the query's nearest
// sections together by reciprocal rank fusion and keeps topK as Search
// does. ok is false, and search stays BM25 only, when the embedder fails or
// the index holds no vectors of the model.
func (ix *Index) fused(ctx context.Context, query string, lex []hit, topK int) (hits []hit, ok bool, err error) {
	// No vector stored (the model was never reachable): no call to make.
	var stored int
	if err := ix.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM kb_vectors WHERE model = ? LIMIT 1)`, ix.embedName).Scan(&stored); err != nil {
		return nil, false, fmt.Errorf("read section vectors: %w", err)
	}
	if stored == 0 {
		return nil, false, nil
	}
	// masked like the chat path masks a question, whatever the caller (kb
	// search hands the raw query): a secret in it never reaches /api/embed
	qv, err := ix.embedder.Embed(ctx, []string{egress.Mask(query).String()})
	if err != nil {
		return nil, false, nil //nolint:nilerr // a failing embedder means BM25 only, by design
	}
	near, ok, err := ix.nearest(ctx, qv[0], topK*candidateFactor)
	if err != nil || !ok {
		return nil, false, err
	}
	byID := make(map[int64]*hit, len(lex)+len(near))
	add := func(h hit, rank int) {
		p, seen := byID[h.id]
		if !seen {
			h.covered, h.literal, h.fused = 0, 0, 0
			p = &h
			byID[h.id] = p
		}
		p.fused += 1 / float64(RRFK+rank+1)
	}
	for r, h := range lex {
		add(h, r)
	}
	var missing []int64
	for _, s := range near {
		if _, seen := byID[s.id]; !seen {
			missing = append(missing, s.id)
		}
	}
	rowsByID, err := ix.sections(ctx, missing)
	if err != nil {
		return nil, false, err
	}
	for r, s := range near {
		h, seen := byID[s.id]
		switch {
		case seen:
			h.fused += 1 / float64(RRFK+r+1)
		default:
			if row, found := rowsByID[s.id]; found {
				add(row, r)
			}
		}
	}
	all := make([]hit, 0, len(byID))
	for _, h := range byID {
		h.rank = -h.fused // better() orders by rank: fused score, best first
		all = append(all, *h)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].fused != all[j].fused {
			return all[i].fused > all[j].fused
		}
		return all[i].docID < all[j].docID
	})
	kept, _ := diversify(all, topK)
	return kept, true, nil
}

// sections reads the hits of the given section ids.
func (ix *Index) sections(ctx context.Context, ids []int64) (map[int64]hit, error) {
	out := make(map[int64]hit, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT id, doc_id, title, source, body FROM kb_sections
		WHERE id IN (?`+strings.Repeat(",?", len(ids)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read nearest sections: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.docID, &h.title, &h.source, &h.body); err != nil {
			return nil, fmt.Errorf("read nearest sections: %w", err)
		}
		out[h.id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read nearest sections: %w", err)
	}
	return out, nil
}
