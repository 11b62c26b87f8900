package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/superbiz/superbiz/internal/jsonstream"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
)

// call runs one non-chat exchange under the request timeout.
func (c *Client) call(ctx context.Context, path string, body egress.JSON, read func(r io.Reader) error) error {
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	return c.post(ctx, rctx, path, body, func(_ bool, r io.Reader) error { return read(r) })
}

// Models lists the model ids GET /models reports, in its order.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var ids []string
	err := c.call(ctx, "/models", egress.JSON{}, func(r io.Reader) error {
		var list struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r).Decode(&list); err != nil {
			return &streamFault{model.ErrProtocol, fmt.Errorf("/models did not answer a model list: %w", err)}
		}
		for _, m := range list.Data {
			ids = append(ids, c.hs.Literal(m.ID))
		}
		return nil
	})
	return ids, err
}

// Embed asks POST /embeddings for one vector per input with the configured
// model. The answer is decoded as a stream under model.MaxEmbedAnswer bytes
// and model.MaxEmbedDim dimensions. An answer over either bound, with
// another number of vectors, an empty vector or vectors of mixed dimensions
// is an ErrProtocol *model.Error.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(map[string]any{"model": c.opts.Model, "input": inputs, "encoding_format": "float"})
	if err != nil {
		return nil, c.fail(model.ErrBadRequest, err)
	}
	body, err := egress.MaskJSON(raw)
	if err != nil {
		return nil, c.fail(model.ErrBadRequest, err)
	}
	vecs := make([][]float32, len(inputs))
	err = c.call(ctx, "/embeddings", body, func(r io.Reader) error {
		if err := decodeEmbeddings(jsonstream.NewLimited(r, model.MaxEmbedAnswer, model.ErrEmbedAnswerTooLarge), vecs); err != nil {
			return &streamFault{model.ErrProtocol, fmt.Errorf("embeddings: %w", err)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := model.CheckVectors(vecs, len(inputs)); err != nil {
		return nil, c.fail(model.ErrProtocol, fmt.Errorf("embeddings: %w", err))
	}
	return vecs, nil
}

// decodeEmbeddings fills vecs from the answer's data items by their index;
// an index out of range or repeated, or a count other than len(vecs), is
// refused.
func decodeEmbeddings(d *jsonstream.Decoder, vecs [][]float32) error {
	items := 0
	err := d.Object(func(name string) error {
		if name != "data" {
			return d.Skip()
		}
		return d.Array(func() error {
			items++
			index := 0 // absent: 0, as a plain decode gave
			var vec []float32
			err := d.Object(func(name string) error {
				var err error
				switch name {
				case "index":
					index, err = d.Int()
				case "embedding":
					vec, err = d.Float32s(model.MaxEmbedDim, model.ErrVectorTooLong)
				default:
					err = d.Skip()
				}
				return err
			})
			if err != nil {
				return err
			}
			if index < 0 || index >= len(vecs) || vecs[index] != nil {
				return fmt.Errorf("index %d is out of range or repeated", index)
			}
			vecs[index] = vec
			return nil
		})
	})
	if err != nil {
		return err
	}
	if items != len(vecs) {
		return fmt.Errorf("%d vectors for %d inputs", items, len(vecs))
	}
	return d.End()
}

// HasModel reports whether /models lists the configured model id exactly.
func (c *Client) HasModel(ctx context.Context) (bool, error) {
	ids, err := c.Models(ctx)
	return slices.Contains(ids, c.opts.Model), err
}
