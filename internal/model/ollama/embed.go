package ollama

import (
	"context"
	"errors"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/internal/model"
)

var _ model.Embedder = (*Client)(nil)

// Embed asks /api/embed for one vector per input with the configured model
// (truncate on: an over-long section is cut by the server, not refused). An
// answer with another number of vectors, an empty vector or vectors of mixed
// dimensions is an ErrProtocol *model.Error.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	truncate := true
	req := &api.EmbedRequest{Model: c.opts.Model, Input: inputs, Truncate: &truncate}
	var resp *api.EmbedResponse
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		resp, err = c.api.Embed(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(inputs) {
		return nil, c.fail(model.ErrProtocol, fmt.Errorf("embed: %d vectors for %d inputs", len(resp.Embeddings), len(inputs)))
	}
	dim := len(resp.Embeddings[0])
	if dim == 0 {
		return nil, c.fail(model.ErrProtocol, errors.New("embed: the server returned an empty vector"))
	}
	for i, v := range resp.Embeddings {
		if len(v) != dim {
			return nil, c.fail(model.ErrProtocol, fmt.Errorf("embed: vector %d has dimension %d, vector 0 has %d", i, len(v), dim))
		}
	}
	return resp.Embeddings, nil
}
