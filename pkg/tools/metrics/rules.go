package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/pkg/tools"
)

// pathRules is Prometheus' (and vmalert's, Thanos Ruler's) list of rules.
const pathRules = "/api/v1/rules"

// ErrRuleNotFound is a source whose alerting rules name no rule of the alert.
var ErrRuleNotFound = errors.New("no alerting rule of that name")

// rulesAnswer is the part of /api/v1/rules' data RuleExpr reads.
type rulesAnswer struct {
	Groups []struct {
		Rules []struct {
			Type   string            `json:"type"`
			Name   string            `json:"name"`
			Query  string            `json:"query"`
			Labels map[string]string `json:"labels"`
			Alerts []ruleAlert       `json:"alerts"`
		} `json:"rules"`
	} `json:"groups"`
}

// ruleAlert is one active alert of a rule.
type ruleAlert struct {
	Labels map[string]string `json:"labels"`
}

// RuleExpr is the expression of the alerting rule of source that fires the
// alert alertname with labels, read from its rules (GET /api/v1/rules,
// type=alert): for an alert whose generatorURL holds no expression (one
// sent by vmalert or Thanos Ruler, a rewritten or missing URL). Of several
// rules of that name, the one with an active alert whose labels all are
// among labels (Alertmanager adds the external labels), else the one whose
// own labels all are; two such rules with different expressions are an
// error, never a guess. ErrRuleNotFound when no rule matches; an
// *APIError when the source does not answer.
func (t *Tool) RuleExpr(ctx context.Context, source, alertname string, labels map[string]string) (string, error) {
	s, err := t.source(source)
	if err != nil {
		return "", err
	}
	params := url.Values{"type": {"alert"}, "rule_name[]": {alertname}}
	req, err := s.http.NewRequest(ctx, http.MethodGet, s.url+pathRules+"?"+params.Encode(), nil)
	if err != nil {
		return "", &APIError{Code: tools.CodeInternal, Msg: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.http.Do(req) // every failure is an *httpsource.Error
	var he *httpsource.Error
	if errors.As(err, &he) && he.Kind != httpsource.Status {
		return "", exchangeError(he)
	}
	var env apiResponse
	jsonErr := json.Unmarshal(resp.Body, &env)
	if he != nil || jsonErr != nil || env.Status != "success" {
		return "", s.answerError(resp, env, jsonErr, err)
	}
	var data rulesAnswer
	if err := json.Unmarshal(env.Data, &data); err != nil {
		return "", &APIError{Code: tools.CodeUnavailable, Msg: "the rules answer does not read: " + s.http.Scrub(err.Error())}
	}
	within := func(sub map[string]string) bool {
		for k, v := range sub {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	var active, static []string
	for _, g := range data.Groups {
		for _, r := range g.Rules {
			if r.Type != "alerting" || r.Name != alertname || strings.TrimSpace(r.Query) == "" {
				continue
			}
			if slices.ContainsFunc(r.Alerts, func(a ruleAlert) bool { return within(a.Labels) }) {
				active = append(active, r.Query)
			}
			own := maps.Clone(r.Labels)
			if own == nil {
				own = map[string]string{}
			}
			own["alertname"] = alertname
			if within(own) {
				static = append(static, r.Query)
			}
		}
	}
	for _, found := range [][]string{active, static} {
		slices.Sort(found)
		switch found = slices.Compact(found); len(found) {
		case 0:
			continue
		case 1:
			return s.http.Scrub(found[0]), nil
		default:
			return "", fmt.Errorf("metrics source %q: %d alerting rules named %q match the alert's labels with different expressions", s.Name, len(found), alertname)
		}
	}
	return "", fmt.Errorf("metrics source %q: %w %q", s.Name, ErrRuleNotFound, alertname)
}

// source is the configured source of that name; "" is the only one.
func (t *Tool) source(name string) (*source, error) {
	if name == "" && len(t.sources) == 1 {
		return t.sources[0], nil
	}
	for _, s := range t.sources {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown metrics source %q; valid: %s", name, strings.Join(t.sourceNames(), ", "))
}
