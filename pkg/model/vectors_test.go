package model

import (
	"strings"
	"testing"
)

// CheckVectors refuses every shape the port does not allow.
func TestCheckVectors(t *testing.T) {
	for _, tt := range []struct {
		vecs   [][]float32
		inputs int
		says   string
	}{
		{[][]float32{{1}}, 2, "1 vectors for 2 inputs"},
		{[][]float32{{}}, 1, "empty vector"},
		{[][]float32{{1, 2}, {1}}, 2, "vector 1 has dimension 1"},
		{[][]float32{make([]float32, MaxEmbedDim), make([]float32, MaxEmbedDim)}, 2, ""},
	} {
		err := CheckVectors(tt.vecs, tt.inputs)
		if (tt.says == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("CheckVectors(%d vectors, %d inputs) = %v, want %q", len(tt.vecs), tt.inputs, err, tt.says)
		}
	}
}
