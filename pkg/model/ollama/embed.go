package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/internal/jsonstream"
	"github.com/superbiz/superbiz/pkg/model"
)

var _ model.Embedder = (*Client)(nil)

// maxErrorBody bounds the body of an error answer read for its message.
const maxErrorBody = 64 << 10

// Embed asks /api/embed for one vector per input with the configured model
// (truncate on: an over-long section is cut by the server, not refused).
// The answer is decoded as a stream under model.MaxEmbedAnswer bytes and
// model.MaxEmbedDim dimensions (the Ollama client would read it whole). An
// answer over either bound, with another number of vectors, an empty vector
// or vectors of mixed dimensions is an ErrProtocol *model.Error.
func (c *Client) Embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	truncate := true
	body, err := json.Marshal(&api.EmbedRequest{Model: c.opts.Model, Input: inputs, Truncate: &truncate})
	if err != nil {
		return nil, c.fail(model.ErrBadRequest, fmt.Errorf("embed: %w", err))
	}
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	rctx, ws := withWireState(rctx)
	vecs, err := c.embed(rctx, body)
	if err == nil {
		if err := model.CheckVectors(vecs, len(inputs)); err != nil {
			return nil, c.fail(model.ErrProtocol, fmt.Errorf("embed: %w", err))
		}
		return vecs, nil
	}
	if me := c.contextFailure(ctx, rctx); me != nil {
		return nil, me
	}
	var bad *badAnswer
	if html, _ := ws.htmlPage(); !html && errors.As(err, &bad) {
		return nil, c.fail(model.ErrProtocol, fmt.Errorf("embed: %s", c.scrub.Literal(bad.err.Error())))
	}
	return nil, c.mapError(err, ws)
}

// badAnswer is a 2xx embed answer that is not the API's, or is over a bound.
type badAnswer struct{ err error }

func (b *badAnswer) Error() string { return b.err.Error() }

// embed is one POST /api/embed; an error status comes back as the
// api.StatusError the Ollama client would return, for mapError.
func (c *Client) embed(ctx context.Context, body []byte) ([][]float32, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("api", "embed").String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= http.StatusBadRequest {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil {
			return nil, err
		}
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return nil, api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
	}
	var vecs [][]float32
	d := jsonstream.NewLimited(resp.Body, model.MaxEmbedAnswer, model.ErrEmbedAnswerTooLarge)
	err = d.Object(func(name string) error {
		if name != "embeddings" {
			return d.Skip()
		}
		return d.Array(func() error {
			v, err := d.Float32s(model.MaxEmbedDim, model.ErrVectorTooLong)
			vecs = append(vecs, v)
			return err
		})
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, &badAnswer{err}
	}
	return vecs, nil
}
