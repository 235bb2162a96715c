package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const k8sDir = "../../deploy/k8s"

// manifestYAML reads a manifest of deploy/k8s.
func manifestYAML(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(k8sDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// yamlBlock returns the lines indented under the line "key:" (or the
// literal block "key: |"), with the block's indentation removed.
func yamlBlock(t *testing.T, doc, key string) []string {
	t.Helper()
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		head := strings.TrimLeft(l, " ")
		if head != key+":" && head != key+": |" {
			continue
		}
		indent := len(l) - len(head)
		var block []string
		for _, b := range lines[i+1:] {
			if strings.TrimSpace(b) != "" && len(b)-len(strings.TrimLeft(b, " ")) <= indent {
				break
			}
			block = append(block, b)
		}
		cut := len(block[0]) - len(strings.TrimLeft(block[0], " "))
		for k, b := range block {
			block[k] = strings.TrimRight(b[min(cut, len(b)):], " ")
		}
		return block
	}
	t.Fatalf("no %q in the manifest", key)
	return nil
}

// TestK8sManifestsRunASweep runs the commands of the Kubernetes manifests
// as the pods would (the Job's container command and args, $(VAR)
// expanded; the merge's sh -c line, its glob expanded), on the ConfigMap's
// spec and a short trace, and checks the merged file against an unsharded
// run of the same spec.
func TestK8sManifestsRunASweep(t *testing.T) {
	job := manifestYAML(t, "sweep-job.yaml")
	completions := regexp.MustCompile(`(?m)^\s*completions:\s*(\d+)`).FindStringSubmatch(job)
	shards := regexp.MustCompile(`(?m)- name: SHARDS\n\s*value: "(\d+)"`).FindStringSubmatch(job)
	if completions == nil || shards == nil || completions[1] != shards[1] {
		t.Fatalf("sweep-job.yaml: completions %q and SHARDS %q must be the same N", completions, shards)
	}
	n, _ := strconv.Atoi(shards[1])

	// The pod's files: the ConfigMap at /config, the trace at
	// /data/trace.csv, the results in /results.
	root := t.TempDir()
	for _, dir := range []string{"config", "data", "results"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	storage := manifestYAML(t, "sweep-storage.yaml")
	for _, name := range []string{"sweep.toml", "base.toml"} {
		writeFile(t, filepath.Join(root, "config"), name, strings.Join(yamlBlock(t, storage, name), "\n"))
	}
	csv, err := os.ReadFile("../../testdata/azure2023/AzureLLMInferenceTrace_conv.csv")
	if err != nil {
		t.Fatal(err)
	}
	head := bytes.SplitAfterN(csv, []byte("\n"), 32) // the header and 30 requests
	writeFile(t, filepath.Join(root, "data"), "trace.csv", string(bytes.Join(head[:31], nil)))
	inPod := strings.NewReplacer("/config", filepath.Join(root, "config"), "/data", filepath.Join(root, "data"), "/results", filepath.Join(root, "results"))

	// The kubelet runs command + args; args alone run the image's
	// entrypoint, which the README does not ask to be servesim.
	var argv []string
	for _, key := range []string{"command", "args"} {
		if m := regexp.MustCompile(`(?m)^\s*` + key + `: \["(\w+)"\]`).FindStringSubmatch(job); m != nil {
			argv = append(argv, m[1])
		} else if regexp.MustCompile(`(?m)^\s*` + key + `:$`).MatchString(job) {
			for _, l := range yamlBlock(t, job, key) {
				argv = append(argv, strings.TrimPrefix(l, "- "))
			}
		}
	}
	if len(argv) == 0 || argv[0] != "servesim" {
		t.Fatalf("sweep-job.yaml runs %q: want the servesim command, not the image's entrypoint", argv)
	}
	for i := range n {
		expand := strings.NewReplacer("$(JOB_COMPLETION_INDEX)", strconv.Itoa(i), "$(SHARDS)", shards[1])
		var args []string
		for _, a := range argv[1:] {
			args = append(args, inPod.Replace(expand.Replace(a)))
		}
		if out, err := run(t, args...); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, out)
		}
	}

	merge := manifestYAML(t, "sweep-merge-job.yaml")
	line := strings.Fields(strings.TrimPrefix(yamlBlock(t, merge, "args")[0], "- "))
	if len(line) < 3 || line[0] != "servesim" {
		t.Fatalf("sweep-merge-job.yaml runs %q: want servesim", line)
	}
	var args []string
	for _, a := range line[1:] {
		a = inPod.Replace(a)
		if strings.Contains(a, "*") {
			files, _ := filepath.Glob(a)
			if len(files) != n {
				t.Fatalf("merge glob %s matches %d shard files, want %d", a, len(files), n)
			}
			args = append(args, files...)
			continue
		}
		args = append(args, a)
	}
	if out, err := run(t, args...); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}

	whole := t.TempDir()
	if out, err := run(t, "simulate", "--trace", filepath.Join(root, "data", "trace.csv"), "--sweep", filepath.Join(root, "config", "sweep.toml"),
		"--out", whole, "--top", "10", "--quiet"); err != nil {
		t.Fatalf("unsharded: %v\n%s", err, out)
	}
	for _, name := range []string{"sweep.parquet", "candidates.json"} {
		merged, err1 := os.ReadFile(filepath.Join(root, "results", name))
		unsharded, err2 := os.ReadFile(filepath.Join(whole, name))
		if err1 != nil || err2 != nil || !bytes.Equal(merged, unsharded) {
			t.Errorf("merged %s differs from the unsharded run's (%v, %v)", name, err1, err2)
		}
	}
}

// TestK8sSweepJobRetriesOnlyItsOwnFailures checks the sweep Job's failure
// handling: a shard is retried on its own, and a pod evicted or preempted
// (the DisruptionTarget condition) is replaced without using up one of its
// shard's retries.
func TestK8sSweepJobRetriesOnlyItsOwnFailures(t *testing.T) {
	job := manifestYAML(t, "sweep-job.yaml")
	for _, want := range []string{
		`(?m)^  completionMode: Indexed$`,
		`(?m)^  backoffLimitPerIndex: \d+`,
		`(?m)^      restartPolicy: Never$`, // podFailurePolicy and backoffLimitPerIndex need it
		`(?m)^  podFailurePolicy:\n    rules:\n      - action: Ignore\n        onPodConditions:\n          - type: DisruptionTarget$`,
	} {
		if !regexp.MustCompile(want).MatchString(job) {
			t.Errorf("sweep-job.yaml: no %s", want)
		}
	}
}

// TestK8sReadmeWaitStopsOnAFailedJob runs the README's job_wait against a
// stand-in kubectl: it must return as soon as the Job has a Complete or a
// Failed condition, not wait out its timeout on a failed Job; and no step
// may wait with kubectl wait, which knows only one of the two.
func TestK8sReadmeWaitStopsOnAFailedJob(t *testing.T) {
	readme := manifestYAML(t, "README.md")
	for _, name := range []string{"README.md", "sweep-job.yaml", "sweep-merge-job.yaml", "sweep-storage.yaml"} {
		if m := regexp.MustCompile(`kubectl wait [^\n]*job/`).FindString(manifestYAML(t, name)); m != "" {
			t.Errorf("%s: %q waits out its timeout when the Job fails", name, m)
		}
	}
	fn := regexp.MustCompile(`(?ms)^   job_wait\(\) \{.*?^   \}$`).FindString(readme)
	if fn == "" {
		t.Fatal("README.md: no job_wait function")
	}
	bin := t.TempDir()
	writeFile(t, bin, "kubectl", "#!/bin/sh\ncase $1 in get) echo \"$CONDITIONS\" ;; esac\n")
	if err := os.Chmod(filepath.Join(bin, "kubectl"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		conditions string
		rc         int
	}{{"SuccessCriteriaMet Complete", 0}, {"FailureTarget Failed", 1}} {
		cmd := exec.Command("bash", "-c", fn+"\njob_wait servesim-sweep 60")
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CONDITIONS="+c.conditions)
		start := time.Now()
		out, _ := cmd.CombinedOutput()
		if rc := cmd.ProcessState.ExitCode(); rc != c.rc || time.Since(start) > 5*time.Second {
			t.Errorf("job_wait on a Job with conditions %q: exit %d after %v, want %d at once\n%s", c.conditions, rc, time.Since(start).Round(time.Second), c.rc, out)
		}
	}
}
