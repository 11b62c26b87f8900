package runview

import (
	"context"
	"errors"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Run and session references (docs/SPEC.md#short-names): every command that
// takes a run or session ID resolves it here, through runstore's one
// resolver, so `last`, `last~N` and unique prefixes work alike everywhere.

// refHint says how runs and sessions can be named, after "unknown run".
const refHint = "`superbiz runs` lists the runs and their sessions; name one by its number (the # column), its ID, `last`, `last~N` or a unique prefix of at least 6 characters"

// ResolveRun is the run ID ref names in store; no such run, or a prefix of
// several, is a usage error (exit 2) naming the store.
func ResolveRun(ctx context.Context, store *runstore.Store, ref string) (string, error) {
	id, err := store.ResolveRun(ctx, ref)
	return id, refError(err, "run", ref, store.Path())
}

// ResolveSession is the session ID ref names in store. With mayBeNew an
// unknown ID (not `last`, `last~N`) names a new session and is given back
// as it is, as --session always did for diagnose and chat.
func ResolveSession(ctx context.Context, store *runstore.Store, ref string, mayBeNew bool) (string, error) {
	id, err := store.ResolveSession(ctx, ref)
	if mayBeNew && errors.Is(err, runstore.ErrNotFound) && !runstore.IsRelativeRef(ref) {
		return ref, nil
	}
	return id, refError(err, "session", ref, store.Path())
}

// refError maps the resolver's errors to usage errors.
func refError(err error, kind, ref, where string) error {
	var amb *runstore.AmbiguousError
	var nf *runstore.RefNotFoundError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &amb):
		return &exitcode.Error{Code: exitcode.Usage, Err: amb}
	case errors.As(err, &nf):
		hint := refHint
		if nf.Why != "" {
			hint = nf.Why + "; " + hint
		}
		return &notfound.Error{Kind: kind, Name: ref, Where: where, Hint: hint}
	case runstore.IsRelativeRef(ref):
		return &exitcode.Error{Code: exitcode.Usage, Err: err}
	}
	return err
}
