package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// endless is an expression whose run never ends.
const endless = "while_loop(lambda x: x == x, lambda x: x + 1, 0)"

// --timeout stops an endless loop: a clear message, status 1, and with
// --json an error of kind deadline.
func TestEvalTimeout(t *testing.T) {
	start := time.Now()
	_, errOut, status := kiln("eval", "--timeout", "200ms", endless)
	if took := time.Since(start); took > 200*time.Millisecond+time.Second {
		t.Errorf("kiln eval --timeout 200ms took %v", took)
	}
	t.Logf("kiln eval --timeout 200ms: %s", errOut)
	if status != 1 || !strings.Contains(errOut, "context deadline exceeded") || !strings.Contains(errOut, "--timeout 200ms passed") {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	out, _, status := kiln("eval", "--json", "--timeout", "100ms", endless)
	var got struct {
		Error struct{ Kind, Message string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || got.Error.Kind != "deadline" {
		t.Fatalf("--json: status %d, %q (%v)", status, out, err)
	}
	if _, errOut, status := kiln("eval", "--timeout", "-1s", "1"); status != 2 || !strings.Contains(errOut, "cannot be negative") {
		t.Fatalf("--timeout -1s: status %d, %q", status, errOut)
	}
	// A run that ends in time is not affected.
	if out, errOut, status := kiln("eval", "--timeout", "1m", "fori_loop(0, 10, lambda i, x: x * 2, 1)"); status != 0 || !strings.Contains(out, "1024") {
		t.Fatalf("status %d, %q %q", status, out, errOut)
	}
}

// SIGINT stops a running kiln eval: the command, run as its own process,
// exits promptly with status 130 and says it was interrupted; with --json
// the error's kind is canceled.
func TestEvalInterrupt(t *testing.T) {
	if os.Getenv("KILN_CLI_HELPER") == "1" {
		return // the helper process runs TestEvalInterruptHelper
	}
	if testing.Short() {
		t.Skip("skipping: runs the command as a subprocess")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", endless}, "interrupted (SIGINT)"},
		{[]string{"eval", "--json", endless}, `"kind":"canceled"`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEvalInterruptHelper$")
		cmd.Env = append(os.Environ(), "KILN_CLI_HELPER=1", "KILN_CLI_ARGS="+strings.Join(c.args, "\x1f"))
		var out, errOut bytes.Buffer
		cmd.Stdout = &out
		ready, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &errOut
		cmd.ExtraFiles = []*os.File{w} // fd 3: the helper writes a byte when SIGINT would stop it
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if _, err := ready.Read(make([]byte, 1)); err != nil {
			t.Fatalf("the helper never got ready: %v; stderr %q", err, errOut.String())
		}
		ready.Close()
		time.Sleep(time.Second) // well into the loop
		select {
		case err := <-exited:
			t.Fatalf("kiln %v ended by itself: %v; stdout %q stderr %q", c.args, err, out.String(), errOut.String())
		default:
		}
		sent := time.Now()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("kiln %v did not stop 10s after SIGINT", c.args)
		}
		if took := time.Since(sent); took > 2*time.Second {
			t.Errorf("kiln %v stopped %v after SIGINT", c.args, took)
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("kiln %v: exit status %d, want 130", c.args, code)
		}
		t.Logf("kiln %v: %s%s", c.args, out.String(), errOut.String())
		if got := out.String() + errOut.String(); !strings.Contains(got, c.want) {
			t.Errorf("kiln %v: output %q lacks %q", c.args, got, c.want)
		}
	}
}

// TestEvalInterruptHelper is the process TestEvalInterrupt starts: it runs
// the command line from KILN_CLI_ARGS and exits with its status.
func TestEvalInterruptHelper(t *testing.T) {
	if os.Getenv("KILN_CLI_HELPER") != "1" {
		t.Skip("skipping: the subprocess of TestEvalInterrupt")
	}
	ready := os.NewFile(3, "ready")
	testHookInterruptible = func() {
		fmt.Fprint(ready, "r")
		ready.Close()
	}
	os.Exit(run(strings.Split(os.Getenv("KILN_CLI_ARGS"), "\x1f"), os.Stdout, os.Stderr))
}
