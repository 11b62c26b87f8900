package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/superbiz/superbiz/internal/model"
)

// call runs one non-chat exchange under the request timeout.
func (c *Client) call(ctx context.Context, path string, body []byte, read func(r io.Reader) error) error {
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	return c.post(ctx, rctx, path, body, func(_ bool, r io.Reader) error { return read(r) })
}

// Models lists the model ids GET /models reports, in its order.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var ids []string
	err := c.call(ctx, "/models", nil, func(r io.Reader) error {
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r).Decode(&list); err != nil {
			return &streamFault{model.ErrProtocol, fmt.Errorf("/models did not answer a model list: %w", err)}
		}
		for _, m := range list.Data {
			ids = append(ids, m.ID)
		}
		return nil
	})
	return ids, err
}

// Embed asks POST /embeddings for one vector per input with the configured
// model. An answer with another number of vectors, an empty vector or
// vectors of mixed dimensions is an ErrProtocol *model.Error.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(map[string]any{"model": c.opts.Model, "input": inputs, "encoding_format": "float"})
	if err != nil {
		return nil, c.fail(model.ErrBadRequest, err)
	}
	vecs := make([][]float32, len(inputs))
	err = c.call(ctx, "/embeddings", body, func(r io.Reader) error {
		var resp struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r).Decode(&resp); err != nil {
			return &streamFault{model.ErrProtocol, fmt.Errorf("embeddings: not the API's JSON: %w", err)}
		}
		if len(resp.Data) != len(inputs) {
			return &streamFault{model.ErrProtocol, fmt.Errorf("embeddings: %d vectors for %d inputs", len(resp.Data), len(inputs))}
		}
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(inputs) || vecs[d.Index] != nil {
				return &streamFault{model.ErrProtocol, fmt.Errorf("embeddings: index %d is out of range or repeated", d.Index)}
			}
			vecs[d.Index] = d.Embedding
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	dim := len(vecs[0])
	if dim == 0 {
		return nil, c.fail(model.ErrProtocol, errors.New("embeddings: the server returned an empty vector"))
	}
	for i, v := range vecs {
		if len(v) != dim {
			return nil, c.fail(model.ErrProtocol, fmt.Errorf("embeddings: vector %d has dimension %d, vector 0 has %d", i, len(v), dim))
		}
	}
	return vecs, nil
}

// HasModel reports whether /models lists the configured model id exactly.
func (c *Client) HasModel(ctx context.Context) (bool, error) {
	ids, err := c.Models(ctx)
	return slices.Contains(ids, c.opts.Model), err
}
