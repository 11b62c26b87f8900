package ollama

import (
	"context"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/pkg/model"
)

// call runs one non-streamed API call under the request timeout and maps its
// failure exactly as Chat does, so doctor reports the same kinds.
func (c *Client) call(ctx context.Context, fn func(ctx context.Context) error) error {
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	rctx, ws := withWireState(rctx)
	err := fn(rctx)
	if err == nil {
		return nil
	}
	if me := c.contextFailure(ctx, rctx); me != nil {
		return me
	}
	return c.mapError(err, ws)
}

// Version asks /api/version, which proves the host is an Ollama server.
func (c *Client) Version(ctx context.Context) (string, error) {
	var v string
	err := c.call(ctx, func(ctx context.Context) error {
		var err error
		v, err = c.api.Version(ctx)
		return err
	})
	return v, err
}

// Show returns the capabilities /api/show reports for name (the configured
// model when name is empty), e.g. ["completion","tools","thinking"], so
// doctor can say whether native tool calling will work. An unknown model is
// an ErrModelNotFound *model.Error.
func (c *Client) Show(ctx context.Context, name string) ([]string, error) {
	if name == "" {
		name = c.opts.Model
	}
	var caps []string
	err := c.call(ctx, func(ctx context.Context) error {
		resp, err := c.api.Show(ctx, &api.ShowRequest{Model: name})
		if err != nil {
			return err
		}
		for _, cp := range resp.Capabilities {
			caps = append(caps, string(cp))
		}
		return nil
	})
	return caps, err
}

// HasModel reports whether the configured model is pulled on the server
// (/api/tags; a name without a tag matches ":latest" as Ollama resolves it).
func (c *Client) HasModel(ctx context.Context) (bool, error) {
	var found bool
	err := c.call(ctx, func(ctx context.Context) error {
		list, err := c.api.List(ctx)
		if err != nil {
			return err
		}
		for _, m := range list.Models {
			if SameModel(m.Name, c.opts.Model) || SameModel(m.Model, c.opts.Model) {
				found = true
				return nil
			}
		}
		return nil
	})
	return found, err
}

// Models lists the names of the models pulled on the server (/api/tags), in
// the server's order, so doctor can name them when the configured one is
// missing or cannot call tools.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var names []string
	err := c.call(ctx, func(ctx context.Context) error {
		list, err := c.api.List(ctx)
		if err != nil {
			return err
		}
		for _, m := range list.Models {
			names = append(names, m.Name)
		}
		return nil
	})
	return names, err
}

// SameModel says whether two model names are one model as Ollama resolves
// them (a name without a tag is ":latest"), so callers compare names alike.
func SameModel(a, b string) bool {
	tagged := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return tagged(a) == tagged(b)
}
