package knowledge

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// MaxSearchTopK bounds Search for callers other than the tool (kb search).
const MaxSearchTopK = 100

// Document is one search hit, exactly the shape lookup_knowledge returns.
type Document struct {
	tools.DocRef
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"`
}

// MaxSectionsPerResult is how many sections of one file a search returns
// among its topK when other files match too, so one runbook's near-identical
// sections cannot fill the whole result.
const MaxSectionsPerResult = 2

// candidateFactor: a search ranks topK×candidateFactor sections, so that
// after dropping duplicates and capping each file there are still topK left.
const candidateFactor = 4

// Search returns the topK best sections for a free-text query (see the
// package doc for the query strategy): at most MaxSectionsPerResult of one
// file unless too few files match, and never two sections with the same
// text. With an embedder (WithEmbedder) that answers and stored vectors,
// the BM25 candidates and the query's nearest sections are fused by
// reciprocal rank; otherwise the result is BM25's alone. A query without any
// searchable term returns no documents and no error. It does not Sync.
func (ix *Index) Search(ctx context.Context, query string, topK int) ([]Document, error) {
	if topK < 1 || topK > MaxSearchTopK {
		return nil, fmt.Errorf("top_k %d out of range: use 1–%d", topK, MaxSearchTopK)
	}
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	snippetTerms := matchTerms(query)
	if ix.embedder == nil {
		hits, err := ix.lexical(ctx, terms, topK)
		if err != nil {
			return nil, err
		}
		return documents(hits, snippetTerms), nil
	}
	lex, err := ix.lexical(ctx, terms, topK*candidateFactor)
	if err != nil {
		return nil, err
	}
	hits, ok, err := ix.fused(ctx, query, lex, topK)
	if err != nil {
		return nil, err
	}
	if !ok {
		// BM25 exactly as without an embedder.
		if hits, err = ix.lexical(ctx, terms, topK); err != nil {
			return nil, err
		}
	}
	return documents(hits, snippetTerms), nil
}

// lexical is the BM25 search: the topK best sections for the query terms.
func (ix *Index) lexical(ctx context.Context, terms []term, topK int) ([]hit, error) {
	parts := coverageAtoms(terms)
	// Sections holding every term come first when there are enough of them:
	// ranking them costs only their number, not the number of sections that
	// hold any one common term.
	if len(terms) > 1 || len(terms[0].parts) > 0 {
		hits, diverse, err := ix.rank(ctx, everyTerm(terms), topK, parts)
		if err != nil {
			return nil, err
		}
		if diverse {
			return hits, nil
		}
	}
	hits, _, err := ix.rank(ctx, anyTerm(terms), topK, parts)
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// maxCoverageAtoms bounds the atoms one search counts; a longer query is
// ranked by bm25 alone.
const maxCoverageAtoms = 32

// coverageAtoms are the query's separate concepts: each term (or one of its
// synonyms), and each word of a CamelCase identifier (matched by itself or
// by the whole identifier). A section matching more of them ranks first,
// and of those one matching more in the query's own words; nil when there
// is only one without synonyms, or too many to count.
func coverageAtoms(terms []term) []atom {
	var out []atom
	synonyms := false
	for _, t := range terms {
		if len(t.parts) == 0 {
			a := atom{forms: []string{roughStem(t.text)}, prefix: t.prefix}
			for _, alt := range t.alts {
				a.alts = append(a.alts, roughStem(alt))
			}
			synonyms = synonyms || len(a.alts) > 0
			out = append(out, a)
			continue
		}
		for _, p := range t.parts {
			out = append(out, atom{forms: []string{roughStem(p), roughStem(t.text)}})
		}
	}
	if (len(out) < 2 && !synonyms) || len(out) > maxCoverageAtoms {
		return nil
	}
	return out
}

// hit is one ranked section before it becomes a Document.
type hit struct {
	id                         int64
	docID, title, source, body string
	rank                       float64 // bm25: negative, lower is better
	covered                    int     // coverage atoms the section matches
	literal                    int     // of those, the ones in the query's own words (one-atom queries)
	fused                      float64 // reciprocal rank fusion score, 0 for BM25 only
}

// words is the rough token set of the hit's section as the index holds it
// (title, identifier and file name words, body, source path), for counting
// the atoms it covers.
func (h hit) words() map[string]bool {
	return roughTokens(titleText(h.title, fileWords(h.source)) + " " + h.body + " " + h.source)
}

// rank runs one MATCH expression over topK×candidateFactor sections by
// bm25, orders them by how many of the atoms they match (then how many in
// the query's own words), then bm25, and
// returns the topK that diversify keeps, and whether they came from enough
// files without filling.
func (ix *Index) rank(ctx context.Context, match string, topK int, atoms []atom) ([]hit, bool, error) {
	// Rank inside FTS5 first, then read only the candidates' text.
	rows, err := ix.db.QueryContext(ctx, `SELECT s.id, s.doc_id, s.title, s.source, s.body, hit.r
		FROM (SELECT rowid, bm25(kb_fts, ?, ?, ?) AS r FROM kb_fts WHERE kb_fts MATCH ? ORDER BY r LIMIT ?) AS hit
		JOIN kb_sections s ON s.id = hit.rowid
		ORDER BY hit.r, s.doc_id`, weightTitle, weightBody, weightMeta, match, topK*candidateFactor)
	if err != nil {
		return nil, false, fmt.Errorf("search knowledge index: %w", err)
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.docID, &h.title, &h.source, &h.body, &h.rank); err != nil {
			return nil, false, fmt.Errorf("search knowledge index: %w", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("search knowledge index: %w", err)
	}
	// Counted when every term was required too: a section may hold a term
	// only by a synonym. A one-concept query prefers its own word to a
	// synonym ("超时" the Chinese runbook before the English one); with more
	// concepts, how many are covered and then bm25 decide, since a
	// paraphrase is written in other words than the runbook's.
	if len(atoms) > 0 {
		for i := range hits {
			n, literal := covered(hits[i].words(), atoms)
			hits[i].covered = n
			if len(atoms) == 1 {
				hits[i].literal = literal
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return moreCovered(hits[i], hits[j]) })
	}
	kept, diverse := diversify(hits, topK)
	return kept, diverse, nil
}

// diversify keeps the best topK of hits (in rank order): a section whose
// text equals a better one's is dropped (a runbook copied into two folders),
// and a file's sections past its best MaxSectionsPerResult wait until every
// other file's have been taken; they fill the result only when fewer files
// match. diverse reports that no filling was needed.
func diversify(hits []hit, topK int) (kept []hit, diverse bool) {
	perFile := map[string]int{}
	seen := map[string]bool{}
	var waiting []hit
	for _, h := range hits {
		if seen[h.body] {
			continue
		}
		seen[h.body] = true
		if perFile[h.source] >= MaxSectionsPerResult {
			waiting = append(waiting, h)
			continue
		}
		perFile[h.source]++
		kept = append(kept, h)
	}
	if len(kept) >= topK {
		return kept[:topK], true
	}
	kept = append(kept, waiting[:min(len(waiting), topK-len(kept))]...)
	sort.SliceStable(kept, func(i, j int) bool { return better(kept[i], kept[j]) })
	return kept, false
}

// better orders hits: more atoms covered, more in the query's own words,
// then a better bm25.
func better(a, b hit) bool {
	if a.covered != b.covered || a.literal != b.literal {
		return moreCovered(a, b)
	}
	return a.rank < b.rank
}

// moreCovered orders hits by atoms covered, then by those in the query's
// own words.
func moreCovered(a, b hit) bool {
	if a.covered != b.covered {
		return a.covered > b.covered
	}
	return a.literal > b.literal
}

// documents turns ranked hits into the Documents lookup_knowledge returns.
func documents(hits []hit, snippetTerms []string) []Document {
	docs := make([]Document, 0, len(hits))
	for _, h := range hits {
		var d Document
		d.DocID = clean(h.docID, maxFieldBytes)
		// Stored text is redacted when indexed; redacting again as it is
		// served (idempotent) keeps a store written by an older version safe.
		d.Title = clean(egress.Mask(h.title).String(), maxFieldBytes)
		d.Source = clean(h.source, maxFieldBytes)
		d.Snippet = Snippet(egress.Mask(h.body).String(), snippetTerms, SnippetBytes)
		d.Score = score(h)
		docs = append(docs, d)
	}
	return docs
}

// score is a hit's score, higher is better and in result order: the number
// of query atoms its section matches (0 for a one-atom query) plus its bm25
// relevance s = -bm25 mapped into [0, 1) as s/(1+s); kept to four
// significant digits. It is comparable only within one search.
func score(h hit) float64 {
	s := -h.rank
	if s < 0 || math.IsNaN(s) {
		s = 0
	}
	// literal ≤ maxCoverageAtoms and s/(1+s) < 1: the fraction orders ties
	// of covered without ever reaching the next whole atom.
	v := float64(h.covered) + (float64(h.literal)+s/(1+s))/(maxCoverageAtoms+2)
	if h.fused > 0 {
		v = h.fused
	}
	if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64); err == nil {
		return r
	}
	return v
}
