package model

import (
	"errors"
	"fmt"
)

// Bounds of an embedding answer, one set for every adapter
// (docs/SPEC.md#semantic-runbook-search).
const (
	// MaxEmbedDim is the largest vector dimension accepted: real embedding
	// models stay within 4,096; a 10⁶-dimensional answer would make the
	// store of 20,000 sections about 80 GB.
	MaxEmbedDim = 8192
	// MaxEmbedAnswer is the most bytes read from one embedding answer: 32
	// vectors of MaxEmbedDim float32s in JSON are under 5 MiB.
	MaxEmbedAnswer = 16 << 20
)

// The refusals of an answer past a bound, for adapters reading it as a stream.
var (
	ErrEmbedAnswerTooLarge = fmt.Errorf("the embedding answer is over %d MiB", MaxEmbedAnswer>>20)
	ErrVectorTooLong       = fmt.Errorf("a vector has more than %d dimensions", MaxEmbedDim)
)

// CheckVectors is the shape every Embedder answer must have: one vector per
// input, none empty, all of one dimension. It does not check MaxEmbedDim:
// the adapters enforce that bound where they decode the answer (jsonstream's
// Float32s), the one place a vector grows, so no longer vector is ever held.
func CheckVectors(vecs [][]float32, inputs int) error {
	if len(vecs) != inputs {
		return fmt.Errorf("%d vectors for %d inputs", len(vecs), inputs)
	}
	if inputs == 0 {
		return nil
	}
	dim := len(vecs[0])
	if dim == 0 {
		return errors.New("the server returned an empty vector")
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("vector %d has dimension %d, vector 0 has %d", i, len(v), dim)
		}
	}
	return nil
}
