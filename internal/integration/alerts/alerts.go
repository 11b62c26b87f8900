// Package alerts is the Alertmanager integration ([alerts]): the client of
// `superbiz alerts`, `diagnose --alert` and MCP's list_alerts, built with
// the credential read from the variable the file names, and its doctor
// check. It adds no tool: an alert starts a diagnosis, it is not evidence
// the model asks for. The API client is internal/alerts.
package alerts

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
)

// Source is the Alertmanager integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "alerts" }

// Build adds nothing: the commands that read alerts call Client.
func (Source) Build(context.Context, *config.Config, integration.Env, *integration.Parts) error {
	return nil
}

// Client builds the Alertmanager client of [alerts], reading the credential
// from the variable the configuration names. No url, or a named variable
// that is unset, is a *integration.ConfigError; the secret itself is never
// printed.
func Client(cfg *config.Config, getenv func(string) string) (*alerts.Client, error) {
	ac := Of(cfg)
	if ac.URL == "" {
		return nil, &integration.ConfigError{Err: errors.New("no Alertmanager configured\nhint: add [alerts] url = \"http://127.0.0.1:9093\" to the configuration file (see docs/SPEC.md#configuration)")}
	}
	secret := func(key, name string) (string, error) {
		v := getenv(name)
		if v == "" {
			return "", integration.Configf("alerts.%s names $%s, which is not set: export the credential in that variable", key, name)
		}
		return v, nil
	}
	opts := alerts.Options{URL: ac.URL, Username: ac.Username, Timeout: ac.Timeout}
	var err error
	if ac.BearerTokenEnv != "" {
		if opts.BearerToken, err = secret("bearer_token_env", ac.BearerTokenEnv); err != nil {
			return nil, err
		}
	}
	if ac.PasswordEnv != "" {
		if opts.Password, err = secret("password_env", ac.PasswordEnv); err != nil {
			return nil, err
		}
	}
	c, err := alerts.New(opts)
	if err != nil {
		return nil, &integration.ConfigError{Err: err}
	}
	return c, nil
}

// Tool is "": no tool call reads Alertmanager.
func (Source) Tool() string { return "" }

// Setup is "": the source adds no tool.
func (Source) Setup() string { return "" }

// Reads is never called: the source adds no tool.
func (Source) Reads(json.RawMessage, json.RawMessage) []string { return nil }
