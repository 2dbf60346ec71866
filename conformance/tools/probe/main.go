// Command probe is WPC's in-cluster test helper for the cluster proofs.
//
//	probe api                      GET /api through the kubernetes Service with the pod's token
//	probe get URL                  GET a URL and print the body (Service DNS checks)
//	probe serve ADDR TEXT          serve TEXT over plain HTTP
//	probe webhook ADDR CERT KEY    a mutating admission webhook that injects a sidecar
//
// The webhook appends a container named "injected" running the image in
// INJECT_IMAGE and the command in INJECT_COMMAND (a JSON array of strings;
// default ["/bin/sleep", "3600"]).
//
// Standard library only, built static, so it runs FROM scratch.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	if len(os.Args) < 2 {
		fail("usage: probe api|get|serve|webhook ...")
	}
	switch os.Args[1] {
	case "api":
		apiCheck()
	case "get":
		get(os.Args[2])
	case "serve":
		text := os.Args[3]
		fail(http.ListenAndServe(os.Args[2], http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, text)
		})).Error())
	case "webhook":
		http.HandleFunc("/mutate", mutate)
		fail(http.ListenAndServeTLS(os.Args[2], os.Args[3], os.Args[4], nil).Error())
	default:
		fail("unknown subcommand " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}

func apiCheck() {
	token, err := os.ReadFile(saDir + "/token")
	if err != nil {
		fail(err.Error())
	}
	ca, err := os.ReadFile(saDir + "/ca.crt")
	if err != nil {
		fail(err.Error())
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
	}}
	url := "https://" + os.Getenv("KUBERNETES_SERVICE_HOST") + ":" + os.Getenv("KUBERNETES_SERVICE_PORT") + "/api"
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+string(token))
	if show(client, req) != http.StatusOK {
		os.Exit(2)
	}
}

func get(url string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		fail(err.Error())
	}
	show(&http.Client{Timeout: 10 * time.Second}, req)
}

// show sends req, prints the answer's status code and body, and returns the code.
func show(client *http.Client, req *http.Request) int {
	resp, err := client.Do(req)
	if err != nil {
		fail(err.Error())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s\n", resp.StatusCode, body)
	return resp.StatusCode
}

type review struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Request    *reviewRequest  `json:"request,omitempty"`
	Response   *reviewResponse `json:"response,omitempty"`
}

type reviewRequest struct {
	UID string `json:"uid"`
}

type reviewResponse struct {
	UID       string `json:"uid"`
	Allowed   bool   `json:"allowed"`
	PatchType string `json:"patchType,omitempty"`
	Patch     []byte `json:"patch,omitempty"`
}

// injectCommand is INJECT_COMMAND parsed as a JSON array, or the default sleep.
func injectCommand() ([]string, error) {
	raw := os.Getenv("INJECT_COMMAND")
	if raw == "" {
		return []string{"/bin/sleep", "3600"}, nil
	}
	var command []string
	if err := json.Unmarshal([]byte(raw), &command); err != nil || len(command) == 0 {
		return nil, fmt.Errorf("INJECT_COMMAND must be a non-empty JSON array of strings: %q", raw)
	}
	return command, nil
}

// mutate appends a container named "injected" that the pod's author never wrote.
func mutate(w http.ResponseWriter, r *http.Request) {
	var in review
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Request == nil {
		http.Error(w, "bad AdmissionReview", http.StatusBadRequest)
		return
	}
	command, err := injectCommand()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	image := os.Getenv("INJECT_IMAGE")
	patch := []map[string]any{{
		"op":   "add",
		"path": "/spec/containers/-",
		"value": map[string]any{
			"name":            "injected",
			"image":           image,
			"imagePullPolicy": "Never",
			"command":         command,
		},
	}}
	raw, _ := json.Marshal(patch)
	out := review{APIVersion: in.APIVersion, Kind: in.Kind, Response: &reviewResponse{
		UID: in.Request.UID, Allowed: true, PatchType: "JSONPatch", Patch: raw,
	}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}
