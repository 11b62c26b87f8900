package runbooks

// InputDocs are docs/SPEC.md's rules of lookup_knowledge's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"query": "trimmed; 1–512 bytes",
		"top_k": "1–8, default 3",
	}
}
