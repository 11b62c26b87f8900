package logparse

import (
	"testing"
	"time"
)

// The container name is read from both Kubernetes node log paths, and from
// no other path; a generic container name gives the pod's workload.
func TestPathService(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for path, want := range map[string]string{
		"/var/log/containers/verify-code-5b7c9d8f4-pl2mz_shop_verify-code-" + id + ".log":                                    "verify-code",
		"/var/log/pods/shop_payments-6f5d7c9b8-abcde_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/payments/0.log":                    "payments",
		"/var/log/pods/shop_payments-6f5d7c9b8-abcde_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/payments/0.log.20260314-140000.gz": "payments",
		// a generic container name: the pod's workload
		"/var/log/pods/train_ts-order-service-5b67c48447-mv5hb_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/server/0.log": "ts-order-service",
		"/var/log/containers/ts-station-food-service-dc4d75dd-fw6ft_train_server-" + id + ".log":                  "ts-station-food-service",
		"/var/log/pods/monitoring_node-exporter-x2k4p_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/app/0.log":             "node-exporter",
		"/var/log/containers/web-0_shop_web-" + id + ".log":                                                       "web",
		"/var/log/containers/checkout_shop_main-" + id + ".log":                                                   "checkout",
		"/var/log/pods/shop_payments-6f5d7c9b8-abcde_0f8e7d6c-5b4a-4392-8170-6e5d4c3b2a19/istio-proxy/0.log":      "istio-proxy",
		"/var/log/containers/not-a-pod.log":                                                                       "",
		"/var/log/app/payments/0.log":                                                                             "",
	} {
		if got := PathService(path); got != want {
			t.Errorf("PathService(%q) = %q, want %q", path, got, want)
		}
	}
}

// Both wrappers give the wrapper's time and stream and the inner line's
// level, service, message and fields; a CRI line split into parts joins up
// to its F part; JSON that is no docker wrapper is left to the json layout.
func TestWrappedLines(t *testing.T) {
	tc := &TimeCtx{Loc: time.UTC, Year: 2026}
	at := time.Date(2023, 1, 29, 9, 41, 49, 552795573, time.UTC).UnixNano()
	for _, tt := range []struct {
		layout, line             string
		level, service, msg, key string
	}{
		{LayoutDocker, `{"log":"{\"level\":\"error\",\"logger\":\"pay\",\"msg\":\"declined\",\"order\":7}\n","stream":"stderr","time":"2023-01-29T09:41:49.552795573Z"}`, "ERROR", "", "declined", "logger"},
		{LayoutDocker, `{"log":"level=warn msg=\"slow cache\" took=3s\n","stream":"stdout","time":"2023-01-29T09:41:49.552795573Z"}`, "WARN", "", "slow cache", "took"},
		{LayoutDocker, `{"log":"2023-01-29 09:41:49.552 ERROR 1 --- [main] v.s.i.VerifyCodeServiceImpl#129 : send failed\n","stream":"stdout","time":"2023-01-29T09:41:49.552795573Z"}`, "ERROR", "", "send failed", "logger"},
		{LayoutCRI, `2023-01-29T09:41:49.552795573Z stdout F {"severity":"WARNING","message":"retry"}`, "WARN", "", "retry", ""},
		{LayoutCRI, `2023-01-29T09:41:49.552795573Z stderr F level=error msg=boom`, "ERROR", "", "boom", ""},
		{LayoutCRI, `2023-01-29T09:41:49.552795573Z stdout F [ERROR] upstream refused`, "ERROR", "", "[ERROR] upstream refused", ""},
	} {
		var r Record
		if k := LayoutByName(tt.layout).ParseLine([]byte(tt.line), tc, &r); k != LineTimed || r.TS != at {
			t.Errorf("%s: kind %d ts %d, want timed at %d", tt.line, k, r.TS, at)
			continue
		}
		if r.Level != tt.level || string(r.Service) != tt.service || (tt.msg != "" && string(r.Msg) != tt.msg) {
			t.Errorf("%s: level %q service %q msg %q", tt.line, r.Level, r.Service, r.Msg)
		}
		keys := map[string]bool{}
		for _, f := range r.Fields {
			keys[string(f.Key)] = true
		}
		if !keys["stream"] || (tt.key != "" && !keys[tt.key]) {
			t.Errorf("%s: fields %v", tt.line, keys)
		}
	}
	var r Record
	if k := LayoutByName(LayoutDocker).ParseLine([]byte(`{"level":"error","msg":"x","time":"2023-01-29T09:41:49Z"}`), tc, &r); k != LineCont {
		t.Errorf("plain JSON read as a docker line (kind %d)", k)
	}
	entry := "2023-01-29T09:41:49.552795573Z stdout P 2023-01-29 09:41:49 ERROR [api] upstream time\n" +
		"2023-01-29T09:41:49.552795574Z stdout P out after\n" +
		"2023-01-29T09:41:49.552795575Z stdout F  5000 ms\n"
	j := criJoin([]byte(entry))
	if want := "2023-01-29T09:41:49.552795573Z stdout F 2023-01-29 09:41:49 ERROR [api] upstream timeout after 5000 ms"; string(j) != want {
		t.Errorf("joined %q, want %q", j, want)
	}
	if criJoin([]byte("2023-01-29T09:41:49.552795573Z stdout F whole\n")) != nil {
		t.Error("an F line was joined")
	}
}
