package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
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

// errEmbedAnswerTooLarge ends a read past MaxEmbedAnswer bytes.
var errEmbedAnswerTooLarge = fmt.Errorf("the embedding answer is over %d MiB", MaxEmbedAnswer>>20)

// VectorDecoder reads an embedding answer as a stream of JSON tokens, so a
// hostile answer is refused at the first vector element past MaxEmbedDim
// or the first byte past MaxEmbedAnswer, never read whole.
type VectorDecoder struct {
	dec *json.Decoder
}

// NewVectorDecoder reads from r, at most MaxEmbedAnswer bytes.
func NewVectorDecoder(r io.Reader) *VectorDecoder {
	dec := json.NewDecoder(&capReader{r: r, left: MaxEmbedAnswer})
	dec.UseNumber()
	return &VectorDecoder{dec: dec}
}

// capReader yields at most left bytes, then errEmbedAnswerTooLarge when
// more follow.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if _, err := io.ReadFull(c.r, one[:]); err != nil {
			return 0, err // io.EOF: the answer ended at the bound
		}
		return 0, errEmbedAnswerTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Object walks one JSON object, calling member for each member name; member
// must consume the value (Vector, Int or Skip).
func (d *VectorDecoder) Object(member func(name string) error) error {
	if err := d.delim('{'); err != nil {
		return err
	}
	for d.dec.More() {
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		name, _ := t.(string)
		if err := member(name); err != nil {
			return err
		}
	}
	return d.delim('}')
}

// Array walks one JSON array, calling elem for each element; elem must
// consume it.
func (d *VectorDecoder) Array(elem func() error) error {
	if err := d.delim('['); err != nil {
		return err
	}
	for d.dec.More() {
		if err := elem(); err != nil {
			return err
		}
	}
	return d.delim(']')
}

// Vector reads one array of numbers as float32s, refusing it at element
// MaxEmbedDim+1.
func (d *VectorDecoder) Vector() ([]float32, error) {
	var v []float32
	err := d.Array(func() error {
		if len(v) == MaxEmbedDim {
			return fmt.Errorf("a vector has more than %d dimensions", MaxEmbedDim)
		}
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		n, ok := t.(json.Number)
		if !ok {
			return fmt.Errorf("a vector element is %v, not a number", t)
		}
		x, err := strconv.ParseFloat(string(n), 32)
		if err != nil {
			return fmt.Errorf("a vector element %q is not a float32: %w", n, err)
		}
		v = append(v, float32(x))
		return nil
	})
	return v, err
}

// Int reads one integer.
func (d *VectorDecoder) Int() (int, error) {
	t, err := d.dec.Token()
	if err != nil {
		return 0, err
	}
	n, ok := t.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", t)
	}
	i, err := strconv.Atoi(string(n))
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer: %w", n, err)
	}
	return i, nil
}

// Skip reads past one value of any kind, token by token.
func (d *VectorDecoder) Skip() error {
	depth := 0
	for {
		t, err := d.dec.Token()
		if err != nil {
			return err
		}
		if dl, ok := t.(json.Delim); ok {
			if dl == '{' || dl == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// End checks that nothing but white space follows the answer.
func (d *VectorDecoder) End() error {
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			return errors.New("data after the answer")
		}
		return err
	}
	return nil
}

func (d *VectorDecoder) delim(want json.Delim) error {
	t, err := d.dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("%v where %v was expected", t, want)
	}
	return nil
}

// CheckVectors is the shape every Embedder answer must have: one vector per
// input, none empty, all of one dimension of at most MaxEmbedDim.
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
	if dim > MaxEmbedDim {
		return fmt.Errorf("a vector has more than %d dimensions", MaxEmbedDim)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return fmt.Errorf("vector %d has dimension %d, vector 0 has %d", i, len(v), dim)
		}
	}
	return nil
}
