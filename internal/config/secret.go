package config

import "github.com/superbiz/superbiz/pkg/model/modelhost"

// HostURL is the normalised model server URL (modelhost.URL): a password
// in it is redacted in every printed or encoded form.
type HostURL = modelhost.URL

// ParseHost normalises a model host the way Ollama reads OLLAMA_HOST
// (modelhost.Parse, the one host parser).
func ParseHost(s string) (HostURL, error) { return modelhost.Parse(s) }
