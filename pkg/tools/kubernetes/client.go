package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxResponse bounds one answer of the API server, in bytes: a page of a
// list larger than this is an error, never read whole.
const MaxResponse = 8 << 20

// ErrNotReadOnly is the transport's refusal of a request that is not a get
// or a list of a resource the tool reads.
var ErrNotReadOnly = errors.New("refused by superbiz's read-only transport")

// ErrTooLarge is an answer longer than MaxResponse.
var ErrTooLarge = fmt.Errorf("the API server's answer is longer than %d bytes", MaxResponse)

// readResources are the only resources the tool's transport lets a GET
// reach (with the namespaces it lists them in): never secrets, configmaps
// or a subresource such as pods/log or pods/exec.
var readResources = map[string]bool{
	"pods": true, "events": true, "nodes": true, "namespaces": true,
	"deployments": true, "replicasets": true,
}

// reviewPaths are the two endpoints doctor's transport may POST to: an
// access review creates nothing in the cluster, it asks what the caller
// may do.
var reviewPaths = map[string]bool{
	"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews": true,
	"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews":  true,
}

// readOnly is the transport every request of the tool goes through: it
// sends a GET of one of readResources and nothing else (with reviews, the
// two access-review POSTs too), and caps every answer at MaxResponse.
type readOnly struct {
	next    http.RoundTripper
	reviews bool
}

// RoundTrip refuses what is not a read before it leaves the process.
func (r readOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := allowed(req.Method, req.URL.Path, r.reviews); err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper must close the body it refuses
		}
		return nil, err
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &capped{ReadCloser: resp.Body, left: MaxResponse}
	return resp, nil
}

// WrappedRoundTripper is the transport under the read-only one, so that
// client-go can cancel a request that timed out (it walks the wrappers down
// to one that can, and logs to stderr when it finds none); requests are
// still only sent through RoundTrip.
func (r readOnly) WrappedRoundTripper() http.RoundTripper { return r.next }

// allowed says whether a request of method on path may leave: a GET of a
// collection or an object of readResources, or (reviews) a POST of an access review.
func allowed(method, path string, reviews bool) error {
	if method == http.MethodPost && reviews && reviewPaths[path] {
		return nil
	}
	if method != http.MethodGet {
		return fmt.Errorf("%w: %s %s (only get and list are sent)", ErrNotReadOnly, method, path)
	}
	res, sub, ok := resourceOf(path)
	if !ok || !readResources[res] || sub != "" {
		return fmt.Errorf("%w: GET %s (only pods, events, nodes, namespaces, deployments and replicasets are read)", ErrNotReadOnly, path)
	}
	return nil
}

// resourceOf reads the resource and subresource of an API path:
// /api/v1/[namespaces/NS/]RES[/NAME[/SUB]] or /apis/GROUP/VERSION/... .
func resourceOf(path string) (res, sub string, ok bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segs) >= 3 && segs[0] == "api" && segs[1] == "v1":
		segs = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		segs = segs[3:]
	default:
		return "", "", false
	}
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return "", "", false
		}
	}
	if segs[0] == "namespaces" && len(segs) >= 3 {
		segs = segs[2:]
	}
	switch len(segs) {
	case 1, 2:
		return segs[0], "", true
	case 3:
		return segs[0], segs[2], true
	}
	return "", "", false
}

// capped is an answer's body that fails past its byte budget.
type capped struct {
	io.ReadCloser
	left int64
}

// Read reads on while the budget lasts, then fails with ErrTooLarge.
func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// one byte more tells a body of exactly the cap from a longer one
		var one [1]byte
		n, err := c.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}

// cluster is one source's connection: the REST client behind the
// read-only transport and what a message may name of it.
type cluster struct {
	rest *rest.RESTClient
	// context and server are the kubeconfig context used and its API
	// server's URL, for messages and doctor (no credential is in either).
	context, server string
}

// loadConfig reads the source's kubeconfig (kubeconfig, else $KUBECONFIG,
// else ~/.kube/config) at its context (else the current one).
func loadConfig(s Source) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if s.Kubeconfig != "" {
		rules.ExplicitPath = s.Kubeconfig
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: s.Context})
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, "", fmt.Errorf("read the kubeconfig %s: %w", describeKubeconfig(s), err)
	}
	ctxName := s.Context
	if ctxName == "" {
		ctxName = raw.CurrentContext
	}
	if ctxName == "" {
		return nil, "", fmt.Errorf("the kubeconfig %s has no current context: set context in the [[kubernetes]] entry", describeKubeconfig(s))
	}
	if _, ok := raw.Contexts[ctxName]; !ok {
		return nil, "", fmt.Errorf("the kubeconfig %s has no context %q", describeKubeconfig(s), ctxName)
	}
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("kubeconfig %s, context %q: %w", describeKubeconfig(s), ctxName, err)
	}
	return cfg, ctxName, nil
}

// describeKubeconfig names where the source's kubeconfig is read from.
func describeKubeconfig(s Source) string {
	if s.Kubeconfig != "" {
		return s.Kubeconfig
	}
	return "($KUBECONFIG or ~/.kube/config)"
}

// connect builds the source's client; reviews lets it POST access reviews
// too (doctor's client, never the tool's).
func connect(s Source, reviews bool) (*cluster, error) {
	cfg, ctxName, err := loadConfig(s)
	if err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = s.Timeout
	cfg.QPS, cfg.Burst = 20, 40
	cfg.UserAgent = "superbiz (read-only)"
	// the API server's deprecation warnings would be written to stderr by
	// client-go's default handler, under the TUI's screen
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.APIPath = "/api"
	cfg.GroupVersion = &schema.GroupVersion{Version: "v1"}
	cfg.NegotiatedSerializer = statusCodecs()
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnly{next: rt, reviews: reviews} })
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("context %q: %w", ctxName, err)
	}
	return &cluster{rest: rc, context: ctxName, server: cfg.Host}, nil
}

// statusCodecs decode the API server's metav1.Status answers, so a refusal
// reads as the server worded it (apierrors); objects are decoded with
// encoding/json by the caller.
func statusCodecs() runtime.NegotiatedSerializer {
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	return serializer.NewCodecFactory(scheme).WithoutConversion()
}

// get reads the JSON object at path with params into out.
func (c *cluster) get(ctx context.Context, path string, params map[string]string, out any) error {
	req := c.rest.Get().AbsPath(path)
	for k, v := range params {
		if v != "" {
			req = req.Param(k, v)
		}
	}
	raw, err := req.Do(ctx).Raw()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode the answer to GET %s: %w", path, err)
	}
	return nil
}

// post sends the JSON object in to path (an access review) and reads the answer into out.
func (c *cluster) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode the request to %s: %w", path, err)
	}
	raw, err := c.rest.Post().AbsPath(path).SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).Do(ctx).Raw()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode the answer to POST %s: %w", path, err)
	}
	return nil
}
