package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/llm/ollama"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/llm/sim"
)

func newModelsCmd() *cobra.Command {
	var model, baseURL, apiKey string
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List what a model endpoint serves, or check that it serves one model",
		Example: `  medteam models --model ollama/                      # every model the local Ollama serves
  medteam models --model ollama/llama3.1:8b            # is it there? its digest
  medteam models --model openai/ --base-url http://127.0.0.1:8000/v1
  medteam models --model sim/                          # the simulator's profiles`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 20*time.Second)
			defer cancel()
			return listModels(ctx, cmd.OutOrStdout(), model, baseURL, apiKey)
		},
	}
	cmd.Flags().StringVar(&model, "model", "ollama/", "provider/ to list, or provider/name to check one model")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "endpoint (as for run)")
	cmd.Flags().StringVar(&apiKey, "api-key", "", "API key for openai/ (default $OPENAI_API_KEY)")
	return cmd
}

// served is what an endpoint serves: its model names, a description of
// where it is, and (when the backend can say) a model's digest.
type served struct {
	names  []string
	where  string
	digest func(string) string
}

// modelListers list what each provider's endpoint serves.
var modelListers = map[string]func(ctx context.Context, baseURL, apiKey string) (served, error){
	"sim": func(context.Context, string, string) (served, error) {
		return served{names: sim.Profiles(), where: "the built-in simulator (profiles)"}, nil
	},
	"ollama": ollamaServed,
	"openai": openaiServed,
}

func ollamaServed(ctx context.Context, baseURL, _ string) (served, error) {
	c, err := ollama.New(ollama.Config{Host: baseURL})
	if err != nil {
		return served{}, usagef("--base-url: %v", err)
	}
	s := served{where: c.Endpoint()}
	if v, err := c.Version(ctx); err == nil {
		s.where += " (Ollama " + v + ")"
	}
	if s.names, err = c.Models(ctx); err != nil {
		return s, fmt.Errorf("listing models at %s: %w", c.Endpoint(), err)
	}
	s.digest = func(m string) string {
		d, err := c.Digest(ctx, m)
		if err != nil {
			return ""
		}
		return d
	}
	return s, nil
}

func openaiServed(ctx context.Context, baseURL, apiKey string) (served, error) {
	base := firstNonEmpty(baseURL, os.Getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
	c, err := openai.New(openai.Config{BaseURL: base, APIKey: firstNonEmpty(apiKey, os.Getenv("OPENAI_API_KEY"))})
	if err != nil {
		return served{}, usagef("--base-url: %v", err)
	}
	s := served{where: c.Endpoint()}
	if s.names, err = c.Models(ctx); err != nil {
		return s, fmt.Errorf("listing models at %s: %w", c.Endpoint(), err)
	}
	return s, nil
}

func listModels(ctx context.Context, w io.Writer, model, baseURL, apiKey string) error {
	provider, name, _ := strings.Cut(model, "/")
	lister, ok := modelListers[provider]
	if !ok {
		return usagef("--model %q: write provider/ or provider/name with provider sim, ollama or openai", model)
	}
	s, err := lister(ctx, baseURL, apiKey)
	if err != nil {
		return err
	}
	slices.Sort(s.names)
	if name == "" {
		fmt.Fprintf(w, "%s serves %d model(s):\n", s.where, len(s.names))
		for _, n := range s.names {
			fmt.Fprintln(w, " ", n)
		}
		return nil
	}
	if !slices.Contains(s.names, name) && !(provider == "ollama" && slices.Contains(s.names, name+":latest")) {
		return fmt.Errorf("%s does not serve %q; it serves: %s", s.where, name, strings.Join(s.names, ", "))
	}
	fmt.Fprintf(w, "%s serves %s", s.where, name)
	if s.digest != nil {
		if d := s.digest(name); d != "" {
			fmt.Fprintf(w, " (digest %s)", d)
		}
	}
	fmt.Fprintln(w)
	return nil
}
