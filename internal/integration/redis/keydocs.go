package redis

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"redis[].name":         {Default: "required", Accepted: "as `logs[].name`; unique"},
		"redis[].url":          {Type: "URL", Default: "required", Accepted: "`redis://[user@]host:port[/db]`, or `rediss://` for TLS, as go-redis reads it (its parameters such as `dial_timeout` pass through; an unknown one is an error); a cluster is go-redis's cluster URL, its other nodes as `addr=` parameters (`redis://diag@10.0.0.1:7000?addr=10.0.0.2:7000&addr=10.0.0.3:7000`); no password in it or as a parameter"},
		"redis[].password_env": {Accepted: "the environment variable holding the password (`AUTH`, with the URL's user when it names one)"},
		"redis[].timeout":      {Accepted: ": limit of one call, every node's answer included"},
	}
}
