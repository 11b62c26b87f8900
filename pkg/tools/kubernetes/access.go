package kubernetes

import (
	"context"
	"fmt"
	"slices"

	authv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// needed are the reads query_kubernetes makes: an account lacking one
// cannot serve that view.
var needed = []authv1.ResourceAttributes{
	{Verb: "list", Resource: "pods"},
	{Verb: "list", Resource: "events"},
	{Verb: "list", Group: "apps", Resource: "deployments"},
	{Verb: "list", Group: "apps", Resource: "replicasets"},
	{Verb: "list", Resource: "nodes"},
}

// readVerbs are the verbs of reading; any other is a power beyond it.
var readVerbs = []string{"get", "list", "watch"}

// Access is what doctor learns of a source's account: the API server it
// reaches, the reads it lacks and the powers it has beyond reading.
type Access struct {
	// Context and Server are the kubeconfig context and its API server.
	Context, Server string
	// Missing are the reads refused ("list nodes").
	Missing []string
	// Extra are the powers beyond reading, worded as "can delete pods",
	// "can read secrets".
	Extra []string
	// Incomplete is the API server's word when it could not list every rule.
	Incomplete string
}

// Check asks the API server of the named source, the way a call reaches it
// (its context, credentials and timeout), what the account may do:
// SelfSubjectAccessReview for each read the tool makes, and
// SelfSubjectRulesReview in each namespace it reads (default without an
// allowlist) for what it may do beyond reading. Its transport may POST
// these two reviews, which change nothing, and otherwise only read.
func (t *Tool) Check(ctx context.Context, name string) (Access, error) {
	i, err := pickSource(t, name)
	if err != nil {
		return Access{}, err
	}
	s := t.sources[i]
	c, err := connect(s.Source, true)
	if err != nil {
		return Access{}, fmt.Errorf("kubernetes source %q: %w", s.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	a := Access{Context: c.context, Server: c.server}
	namespaces := s.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	for _, ns := range namespaces {
		for _, attr := range needed {
			attr.Namespace = ns
			if attr.Resource == "nodes" {
				attr.Namespace = ""
			}
			ok, err := c.allowed(ctx, attr)
			if err != nil {
				return a, &requestError{verb: "review " + attr.Verb + " " + attr.Resource, err: err}
			}
			if say := saying(attr); !ok && !slices.Contains(a.Missing, say) {
				a.Missing = append(a.Missing, say)
			}
		}
		rulesNS := ns
		if rulesNS == "" {
			rulesNS = "default"
		}
		extra, incomplete, err := c.powers(ctx, rulesNS)
		if err != nil {
			return a, &requestError{verb: "review the rules in namespace " + rulesNS, err: err}
		}
		for _, e := range extra {
			if !slices.Contains(a.Extra, e) {
				a.Extra = append(a.Extra, e)
			}
		}
		if incomplete != "" {
			a.Incomplete = incomplete
		}
	}
	return a, nil
}

// pickSource finds the named source; "" is the only one.
func pickSource(t *Tool, name string) (int, error) {
	for i, s := range t.sources {
		if s.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("no kubernetes source %q", name)
}

// saying words a read as a person says it: "list apps/deployments in namespace shop".
func saying(a authv1.ResourceAttributes) string {
	s := a.Verb + " " + a.Resource
	if a.Namespace != "" {
		s += " in namespace " + a.Namespace
	}
	return s
}

// allowed asks the API server whether the account may do attr.
func (c *cluster) allowed(ctx context.Context, attr authv1.ResourceAttributes) (bool, error) {
	review := authv1.SelfSubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectAccessReview"},
		Spec:     authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attr},
	}
	var out authv1.SelfSubjectAccessReview
	if err := c.post(ctx, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", &review, &out); err != nil {
		return false, err
	}
	return out.Status.Allowed, nil
}

// powers lists, from the account's rules in namespace ns, what it may do
// beyond reading ("can delete pods"), and reading secrets ("can read
// secrets"); incomplete is the server's word when its list is not whole.
func (c *cluster) powers(ctx context.Context, ns string) (extra []string, incomplete string, err error) {
	review := authv1.SelfSubjectRulesReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SelfSubjectRulesReview"},
		Spec:     authv1.SelfSubjectRulesReviewSpec{Namespace: ns},
	}
	var out authv1.SelfSubjectRulesReview
	if err := c.post(ctx, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", &review, &out); err != nil {
		return nil, "", err
	}
	for _, r := range out.Status.ResourceRules {
		for _, e := range powersOf(r) {
			if !slices.Contains(extra, e) {
				extra = append(extra, e)
			}
		}
	}
	if out.Status.Incomplete {
		incomplete = textOf(out.Status.EvaluationError)
		if incomplete == "" {
			incomplete = "the API server's list of rules is incomplete"
		}
	}
	return extra, incomplete, nil
}

// powersOf words one rule's powers beyond reading, and a read of secrets.
// The self-reviews every account may make are not powers.
func powersOf(r authv1.ResourceRule) []string {
	var out []string
	for _, res := range r.Resources {
		if res == "selfsubjectaccessreviews" || res == "selfsubjectrulesreviews" || res == "selfsubjectreviews" {
			continue
		}
		what := res
		if res == "*" {
			what = "every resource"
		}
		for _, v := range r.Verbs {
			switch {
			case slices.Contains(readVerbs, v) && (res == "secrets" || res == "*"):
				out = appendNew(out, "can read secrets")
			case slices.Contains(readVerbs, v):
			case v == "*":
				out = appendNew(out, "can do anything to "+what)
				if res == "secrets" || res == "*" {
					out = appendNew(out, "can read secrets")
				}
			default:
				out = appendNew(out, "can "+v+" "+what)
			}
		}
	}
	return out
}

// appendNew appends s unless the list has it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
