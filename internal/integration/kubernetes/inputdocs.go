package kubernetes

// InputDocs are docs/SPEC.md's rules of query_kubernetes's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"source":     "a configured kubernetes source; optional when only one is configured",
		"view":       "`pods`, `events`, `rollouts` or `nodes`",
		"namespace":  "a namespace name (DNS-1123 label); default: every namespace the source allows (its `namespaces`, else the whole cluster); not for `nodes`; one outside the source's `namespaces` is `NOT_ALLOWED`",
		"selector":   "a label selector (`app=checkout`, `tier in (web,api)`), at most 512 bytes; for `events` it selects the events' own labels",
		"name":       "one object's name: a pod, a Deployment, a node; for `events` the involved object's",
		"type":       "`events` only: `Warning` or `Normal`; default both, Warning first",
		"start, end": "RFC 3339, or `2006-01-02 15:04:05` in the local time zone of the machine running superbiz; both or neither; default the hour before the run's clock; at most 7 days",
		"limit":      "the most objects listed, 1 to 100, default 20",
	}
}
