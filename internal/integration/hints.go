package integration

import "github.com/superbiz/superbiz/pkg/model"

// ModelHints are a provider's fixes for a model failure that ended a run,
// one per kind of failure, worded for the configuration (its server, its
// model). For picks the one that applies, in the same order for every
// provider, so a provider writes only its words.
type ModelHints struct {
	// Server: the server did not answer (and no error at all).
	Server string
	// NotFound: the server does not serve the model.
	NotFound string
	// NoTools: the model or the server will not call tools.
	NoTools string
	// Denied: the server (or a proxy) refused the credentials, HTTP 401 or 403.
	Denied func(status int) string
	// RateLimited: HTTP 429 after the adapter's retries; "" leaves it to
	// the failure's kind.
	RateLimited string
	// Failed: the server failed while answering (5xx).
	Failed string
	// Protocol: the answer was not the provider's API (a cut stream, HTML).
	Protocol string
	// Timeout: no answer within model.request_timeout.
	Timeout string
	// Other: the server rejected the request.
	Other string
}

// For is the fix for me, by its kind and HTTP status (nil: the server's).
func (h ModelHints) For(me *model.Error) string {
	switch {
	case me == nil || me.Kind == model.ErrUnreachable:
		return h.Server
	case me.Kind == model.ErrModelNotFound:
		return h.NotFound
	case me.Kind == model.ErrToolsNotSupported:
		return h.NoTools
	case me.Status == 401 || me.Status == 403:
		return h.Denied(me.Status)
	case me.Status == 429 && h.RateLimited != "":
		return h.RateLimited
	case me.Kind == model.ErrServer:
		return h.Failed
	case me.Kind == model.ErrProtocol:
		return h.Protocol
	case me.Kind == model.ErrTimeout:
		return h.Timeout
	}
	return h.Other
}

// EmbedHints are a provider's fixes when knowledge.embed_model could not
// embed, worded for the model and the server.
type EmbedHints struct {
	// Down: the server did not answer, or not in time.
	Down string
	// Failed: the server failed or answered garbage; "" leaves it to Other.
	Failed string
	// Other: the server answered but would not embed with the model.
	Other string
}

// For is the fix for err, by its model.Error kind.
func (h EmbedHints) For(err error) string {
	switch model.KindOf(err) {
	case model.ErrUnreachable, model.ErrTimeout:
		return h.Down
	case model.ErrServer, model.ErrProtocol:
		if h.Failed != "" {
			return h.Failed
		}
	}
	return h.Other
}
