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

func listModels(ctx context.Context, w io.Writer, model, baseURL, apiKey string) error {
	provider, name, _ := strings.Cut(model, "/")
	var names []string
	var where string
	var digest func(string) string
	switch provider {
	case "sim":
		names, where = sim.Profiles(), "the built-in simulator (profiles)"
	case "ollama":
		c, err := ollama.New(ollama.Config{Host: baseURL})
		if err != nil {
			return usagef("--base-url: %v", err)
		}
		where = c.Endpoint()
		if v, err := c.Version(ctx); err == nil {
			where += " (Ollama " + v + ")"
		}
		if names, err = c.Models(ctx); err != nil {
			return fmt.Errorf("listing models at %s: %w", c.Endpoint(), err)
		}
		digest = func(m string) string {
			d, err := c.Digest(ctx, m)
			if err != nil {
				return ""
			}
			return d
		}
	case "openai":
		base := firstNonEmpty(baseURL, os.Getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
		c, err := openai.New(openai.Config{BaseURL: base, APIKey: firstNonEmpty(apiKey, os.Getenv("OPENAI_API_KEY"))})
		if err != nil {
			return usagef("--base-url: %v", err)
		}
		where = c.Endpoint()
		if names, err = c.Models(ctx); err != nil {
			return fmt.Errorf("listing models at %s: %w", c.Endpoint(), err)
		}
	default:
		return usagef("--model %q: write provider/ or provider/name with provider sim, ollama or openai", model)
	}
	slices.Sort(names)
	if name == "" {
		fmt.Fprintf(w, "%s serves %d model(s):\n", where, len(names))
		for _, n := range names {
			fmt.Fprintln(w, " ", n)
		}
		return nil
	}
	if !slices.Contains(names, name) && !(provider == "ollama" && slices.Contains(names, name+":latest")) {
		return fmt.Errorf("%s does not serve %q; it serves: %s", where, name, strings.Join(names, ", "))
	}
	fmt.Fprintf(w, "%s serves %s", where, name)
	if digest != nil {
		if d := digest(name); d != "" {
			fmt.Fprintf(w, " (digest %s)", d)
		}
	}
	fmt.Fprintln(w)
	return nil
}
