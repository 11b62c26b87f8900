// Package jsonstream walks a JSON answer token by token, so a reader of a
// server's answer can bound what it keeps (a series' points, a vector's
// dimensions, the answer's bytes) and refuse a hostile answer at the first
// element past a bound instead of reading it whole.
package jsonstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Decoder reads one JSON document from a stream.
type Decoder struct {
	dec *json.Decoder
}

// New reads from r; numbers keep their text until a caller parses them.
func New(r io.Reader) *Decoder {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	return &Decoder{dec: dec}
}

// NewLimited reads at most limit bytes from r; a read past them fails
// with tooLarge (an answer of exactly limit bytes is read).
func NewLimited(r io.Reader, limit int64, tooLarge error) *Decoder {
	return New(&capReader{r: r, left: limit, tooLarge: tooLarge})
}

// capReader yields at most left bytes, then tooLarge when more follow.
type capReader struct {
	r        io.Reader
	left     int64
	tooLarge error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if _, err := io.ReadFull(c.r, one[:]); err != nil {
			return 0, err // io.EOF: the answer ended at the bound
		}
		return 0, c.tooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// Object walks one JSON object, calling member with each member's name;
// member must consume the value (Decode, Skip, Array, ...).
func (d *Decoder) Object(member func(name string) error) error {
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
func (d *Decoder) Array(elem func() error) error {
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

// Decode reads the next value into v whole: for values the caller knows
// to be small (a status word, one pair), or bounded by the reader.
func (d *Decoder) Decode(v any) error { return d.dec.Decode(v) }

// Skip reads past one value of any kind, token by token.
func (d *Decoder) Skip() error {
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

// Float32s reads one array of numbers as float32s; at element max+1 it
// stops reading and returns tooMany.
func (d *Decoder) Float32s(limit int, tooMany error) ([]float32, error) {
	var v []float32
	err := d.Array(func() error {
		if len(v) == limit {
			return tooMany
		}
		n, err := d.number()
		if err != nil {
			return err
		}
		x, err := strconv.ParseFloat(string(n), 32)
		if err != nil {
			return fmt.Errorf("%q is not a float32: %w", n, err)
		}
		v = append(v, float32(x))
		return nil
	})
	return v, err
}

// Int reads one integer.
func (d *Decoder) Int() (int, error) {
	n, err := d.number()
	if err != nil {
		return 0, err
	}
	i, err := strconv.Atoi(string(n))
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer: %w", n, err)
	}
	return i, nil
}

func (d *Decoder) number() (json.Number, error) {
	t, err := d.dec.Token()
	if err != nil {
		return "", err
	}
	n, ok := t.(json.Number)
	if !ok {
		return "", fmt.Errorf("%v is not a number", t)
	}
	return n, nil
}

// End refuses anything but white space after the document.
func (d *Decoder) End() error {
	_, err := d.dec.Token()
	switch err {
	case io.EOF:
		return nil
	case nil:
		return errors.New("data after the answer")
	}
	return err
}

func (d *Decoder) delim(want json.Delim) error {
	t, err := d.dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("%v where %v was expected", t, want)
	}
	return nil
}
