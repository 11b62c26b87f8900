package jsonstream

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// countingReader hands out a document and counts the bytes read from it.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

var errTooMany = errors.New("too many")

// An array past the bound is refused after reading about bound elements,
// not the whole document: the decoder streams.
func TestFloat32sStopsAtTheBound(t *testing.T) {
	elems := strings.Repeat("0.125,", 999_999) + "0.125" // 6 MB
	r := &countingReader{r: strings.NewReader(`{"model":"m","embeddings":[[` + elems + `]]}`)}
	d := New(r)
	err := d.Object(func(name string) error {
		if name != "embeddings" {
			return d.Skip()
		}
		return d.Array(func() error { _, err := d.Float32s(8192, errTooMany); return err })
	})
	if !errors.Is(err, errTooMany) {
		t.Fatalf("err %v, want the bound's error", err)
	}
	if r.read > 256<<10 {
		t.Fatalf("read %d bytes of a 6 MB document before refusing it", r.read)
	}
	v, err := New(strings.NewReader(`[1,2.5,-3e-2]`)).Float32s(3, errTooMany)
	if err != nil || len(v) != 3 || v[1] != 2.5 || v[2] != -0.03 {
		t.Fatalf("three numbers at a bound of 3: %v %v", v, err)
	}
}

// The byte cap counts every byte, whatever value holds them; a document
// of exactly the cap is read.
func TestNewLimited(t *testing.T) {
	errBig := errors.New("too large")
	const limit = 1 << 20
	big := `{"model":"` + strings.Repeat("x", limit) + `","embeddings":[[1]]}`
	if err := NewLimited(strings.NewReader(big), limit, errBig).Skip(); !errors.Is(err, errBig) {
		t.Fatalf("err %v, want the cap's error", err)
	}
	doc := `{"embeddings":[[1]]}`
	exact := doc + strings.Repeat(" ", limit-len(doc))
	d := NewLimited(strings.NewReader(exact), limit, errBig)
	if err := d.Skip(); err != nil {
		t.Fatalf("a document of exactly the cap: %v", err)
	}
	if err := d.End(); err != nil {
		t.Fatalf("end of a document of exactly the cap: %v", err)
	}
}

// Skip passes nested values whole; End refuses a second document; Int
// and Float32s refuse what is not a number.
func TestSkipEndNumbers(t *testing.T) {
	d := New(strings.NewReader(`{"a":{"b":[1,{"c":[]}],"d":"x"},"n":7} {}`))
	var n int
	err := d.Object(func(name string) error {
		if name == "n" {
			var err error
			n, err = d.Int()
			return err
		}
		return d.Skip()
	})
	if err != nil || n != 7 {
		t.Fatalf("walk: n %d, %v", n, err)
	}
	if err := d.End(); err == nil || !strings.Contains(err.Error(), "data after the answer") {
		t.Errorf("End before a second document: %v", err)
	}
	if _, err := New(strings.NewReader(`"7"`)).Int(); err == nil {
		t.Error("Int accepted a string")
	}
	if _, err := New(strings.NewReader(`[1,"2"]`)).Float32s(8, errTooMany); err == nil {
		t.Error("Float32s accepted a string element")
	}
	if err := New(strings.NewReader(`[1]`)).Object(func(string) error { return nil }); err == nil {
		t.Error("Object accepted an array")
	}
}
