package model

import (
	"io"
	"strings"
	"testing"
)

// countingReader serves a JSON answer of one vector of n elements, made as
// it is read, and counts the bytes handed out.
type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

func vectorAnswer(n int) *countingReader {
	elems := strings.Repeat("0.125,", n-1) + "0.125"
	return &countingReader{r: strings.NewReader(`{"model":"m","embeddings":[[` + elems + `]]}`)}
}

// A vector past MaxEmbedDim is refused after reading about MaxEmbedDim
// elements, not the whole answer: the decoder streams.
func TestVectorDecoderStopsAtTheBound(t *testing.T) {
	r := vectorAnswer(1_000_000) // 6 MB of elements
	d := NewVectorDecoder(r)
	err := d.Object(func(name string) error {
		if name != "embeddings" {
			return d.Skip()
		}
		return d.Array(func() error { _, err := d.Vector(); return err })
	})
	if err == nil || !strings.Contains(err.Error(), "more than 8192 dimensions") {
		t.Fatalf("err %v, want the dimension bound", err)
	}
	if r.read > 256<<10 {
		t.Fatalf("read %d bytes of a 6 MB answer before refusing it", r.read)
	}
}

// The answer cap counts every byte, whatever member holds them.
func TestVectorDecoderAnswerCap(t *testing.T) {
	big := `{"model":"` + strings.Repeat("x", MaxEmbedAnswer) + `","embeddings":[[1]]}`
	d := NewVectorDecoder(strings.NewReader(big))
	if err := d.Skip(); err == nil || !strings.Contains(err.Error(), "over 16 MiB") {
		t.Fatalf("err %v, want the answer cap", err)
	}
	exact := `{"embeddings":[[1]]}` + strings.Repeat(" ", MaxEmbedAnswer-len(`{"embeddings":[[1]]}`))
	d = NewVectorDecoder(strings.NewReader(exact))
	if err := d.Skip(); err != nil {
		t.Fatalf("an answer of exactly the cap: %v", err)
	}
	if err := d.End(); err != nil {
		t.Fatalf("end of an answer of exactly the cap: %v", err)
	}
}

// CheckVectors refuses every shape the port does not allow.
func TestCheckVectors(t *testing.T) {
	for _, tt := range []struct {
		vecs   [][]float32
		inputs int
		says   string
	}{
		{[][]float32{{1}}, 2, "1 vectors for 2 inputs"},
		{[][]float32{{}}, 1, "empty vector"},
		{[][]float32{make([]float32, MaxEmbedDim+1)}, 1, "more than 8192"},
		{[][]float32{{1, 2}, {1}}, 2, "vector 1 has dimension 1"},
		{[][]float32{make([]float32, MaxEmbedDim), make([]float32, MaxEmbedDim)}, 2, ""},
	} {
		err := CheckVectors(tt.vecs, tt.inputs)
		if (tt.says == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("CheckVectors(%d vectors, %d inputs) = %v, want %q", len(tt.vecs), tt.inputs, err, tt.says)
		}
	}
}
