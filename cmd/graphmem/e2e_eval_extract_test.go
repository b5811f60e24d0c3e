package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/graphmem/graphmem/extract/extracttest"
	"github.com/graphmem/graphmem/fixtures"
)

// `graphmem eval extract` against the fake endpoint answering the gold
// set's scripted answers: the table, then the JSON line with the figures
// those answers give (their slips are described in
// fixtures/extract/README.md). Then `graphmem bench`'s episode part, with
// the same binary.
func TestEvalExtractAndBenchCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; the store does not matter here (run without -short)")
	}
	answers, err := fixtures.ExtractScriptedByContent()
	if err != nil {
		t.Fatal(err)
	}
	srv := extracttest.NewServer(t, extracttest.Scripted(answers))
	bin := buildBinary(t)
	cmd := exec.Command(bin, "eval", "extract")
	cmd.Env = append(os.Environ(), "GRAPHMEM_LLM_BASE_URL="+srv.BaseURL(), "GRAPHMEM_LLM_MODEL=scripted", "GRAPHMEM_LLM_MODE=auto")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eval extract: %v\n%s", err, out)
	}
	text := strings.TrimSpace(string(out))
	t.Logf("\n%s", text)
	for _, want := range []string{"extraction on 47 episodes of the gold set; precision of kept facts, then recall", "recorded answers", "full", "compact", "precision", "not grounded"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	type run struct {
		Name      string  `json:"name"`
		Model     string  `json:"model"`
		Episodes  int     `json:"episodes"`
		Precision float64 `json:"precision"`
		Recall    float64 `json:"recall"`
		JSONValid float64 `json:"json_valid"`
		Calls     float64 `json:"calls_per_episode"`
		Prompt    float64 `json:"prompt_tokens_per_episode"`
	}
	var rep struct{ Runs []run }
	lines := strings.Split(text, "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
		t.Fatalf("last line is not the JSON report: %v", err)
	}
	if len(rep.Runs) != 3 || rep.Runs[0].Name != "recorded answers" || rep.Runs[1].Name != "full" || rep.Runs[2].Name != "compact" {
		t.Fatalf("runs %+v", rep.Runs)
	}
	for _, r := range rep.Runs {
		// The fake endpoint answers every run with the recorded answers.
		if r.Episodes != 47 || r.Precision >= 1 || r.Precision < 0.95 || r.Recall >= 1 || r.Recall < 0.95 ||
			r.JSONValid >= 1 || r.Calls <= 1 || r.Prompt <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	// The compact prompt costs fewer prompt tokens than the full one.
	if rep.Runs[2].Prompt >= rep.Runs[1].Prompt/2 {
		t.Errorf("prompt tokens per episode: full %.0f, compact %.0f", rep.Runs[1].Prompt, rep.Runs[2].Prompt)
	}

	// No model configured: a clear error, not a run.
	cmd = exec.Command(bin, "eval", "extract")
	cmd.Env = append(os.Environ(), "GRAPHMEM_LLM_BASE_URL=", "GRAPHMEM_LLM_MODEL=")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "GRAPHMEM_LLM_BASE_URL") {
		t.Errorf("without a model: %v\n%s", err, out)
	}

	// A call time limit that is not a duration is refused by name.
	cmd = exec.Command(bin, "eval", "extract")
	cmd.Env = append(os.Environ(), "GRAPHMEM_LLM_BASE_URL="+srv.BaseURL(), "GRAPHMEM_LLM_MODEL=scripted", "GRAPHMEM_LLM_TIMEOUT=soon")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "llm-timeout") {
		t.Errorf("bad timeout: %v\n%s", err, out)
	}

	t.Run("BenchEpisodes", func(t *testing.T) { benchEpisodesCheck(t, bin) })
}

func TestModelConfig_MaxTokens(t *testing.T) {
	for set, want := range map[string]int{"": 0, "512": 512, "off": -1} {
		mc, err := modelConfig(Config{LLMMaxTokens: set})
		if err != nil || mc.MaxTokens != want {
			t.Errorf("llm-max-tokens %q: %d, %v; want %d", set, mc.MaxTokens, err, want)
		}
	}
	for _, bad := range []string{"0", "-5", "lots"} {
		if _, err := modelConfig(Config{LLMMaxTokens: bad}); err == nil || !strings.Contains(err.Error(), "llm-max-tokens") {
			t.Errorf("llm-max-tokens %q: %v, want an error naming the setting", bad, err)
		}
	}
}

func TestModelConfig_Sampling(t *testing.T) {
	mc, err := modelConfig(Config{})
	if err != nil || mc.Temperature != nil || mc.TopP != nil || mc.TopK != 0 || mc.Seed != nil {
		t.Errorf("unset: %v %v %d %v; want the server's defaults", mc.Temperature, mc.TopP, mc.TopK, err)
	}
	mc, err = modelConfig(Config{LLMTemp: "1.0", LLMTopP: "0.95", LLMTopK: "64", LLMSeed: "7"})
	if err != nil || mc.Temperature == nil || *mc.Temperature != 1 || mc.TopP == nil || *mc.TopP != 0.95 || mc.TopK != 64 || mc.Seed == nil || *mc.Seed != 7 {
		t.Errorf("Gemma's values and a seed: %v %v %d %v %v", mc.Temperature, mc.TopP, mc.TopK, mc.Seed, err)
	}
	if mc, err = modelConfig(Config{LLMTemp: "0"}); err != nil || mc.Temperature == nil || *mc.Temperature != 0 {
		t.Errorf("temperature 0 (greedy) must be sendable: %v %v", mc.Temperature, err)
	}
	for _, bad := range []struct {
		c    Config
		name string
	}{
		{Config{LLMTemp: "hot"}, "llm-temperature"}, {Config{LLMTemp: "2.5"}, "llm-temperature"}, {Config{LLMTemp: "-1"}, "llm-temperature"},
		{Config{LLMTopP: "0"}, "llm-top-p"}, {Config{LLMTopP: "1.5"}, "llm-top-p"},
		{Config{LLMTopK: "0"}, "llm-top-k"}, {Config{LLMTopK: "6.4"}, "llm-top-k"},
		{Config{LLMSeed: "lucky"}, "llm-seed"},
	} {
		if _, err := modelConfig(bad.c); err == nil || !strings.Contains(err.Error(), bad.name) {
			t.Errorf("%+v: %v, want an error naming %s", bad.c, err, bad.name)
		}
	}
}

func benchEpisodesCheck(t *testing.T, bin string) {
	// No model configured: the built-in fake endpoint with the scripted
	// answers; tokens come from the episode records.
	cmd := exec.Command(bin, "bench", "--facts", "300", "--queries", "5", "--episodes", "30", "--episode-workers", "3", "--json")
	cmd.Env = append(os.Environ(), "GRAPHMEM_LLM_BASE_URL=", "GRAPHMEM_LLM_MODEL=", "GRAPHMEM_STORE=embedded")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	var rep map[string]any
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	for _, k := range []string{"ingest_facts_per_sec", "search_p95_ms", "episodes_per_sec", "baseline_bare_model_calls_per_sec",
		"episode_prompt_tokens_per_episode", "episode_completion_tokens_per_episode", "episode_calls_per_episode"} {
		if v, ok := rep[k].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v, want a positive number", k, rep[k])
		}
	}
	// The first 30 cases of the gold set: none needs a repair call (the one
	// garbled answer is case 42's), so one call per episode.
	if rep["episodes"] != 30.0 || rep["episodes_failed"] != 0.0 || rep["episode_calls_per_episode"] != 1.0 ||
		rep["episode_model"] != "scripted (built-in fake endpoint)" || rep["episode_prompt"] != "full" {
		t.Errorf("bench: %v", rep)
	}

	// The compact prompt: the same answers for fewer prompt tokens.
	cmd = exec.Command(bin, "bench", "--facts", "300", "--queries", "5", "--episodes", "30", "--episode-workers", "3", "--json")
	cmd.Env = append(os.Environ(), "GRAPHMEM_LLM_BASE_URL=", "GRAPHMEM_LLM_MODEL=", "GRAPHMEM_STORE=embedded", "GRAPHMEM_LLM_PROMPT=compact")
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("bench: %v\n%s", err, out)
	}
	var compact map[string]any
	if err := json.Unmarshal(out, &compact); err != nil {
		t.Fatalf("bench --json: %v\n%s", err, out)
	}
	t.Logf("compact: prompt %v, completion %v tokens per episode; full: %v, %v", compact["episode_prompt_tokens_per_episode"],
		compact["episode_completion_tokens_per_episode"], rep["episode_prompt_tokens_per_episode"], rep["episode_completion_tokens_per_episode"])
	if compact["episode_prompt"] != "compact" || compact["episode_prompt_tokens_per_episode"].(float64) >= rep["episode_prompt_tokens_per_episode"].(float64)/2 {
		t.Errorf("compact bench: %v", compact)
	}
}
