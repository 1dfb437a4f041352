package embedding

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"

	hs "github.com/hybrid-search/hybridsearch"
)

// Probe asks every host for the model (/api/show) and returns its
// dimension, context length, family and capabilities. The first success is
// cached, so later calls do no I/O. Hosts that fail are logged and skipped
// for a while; Probe fails only when no host knows the model, with the
// first host's error (EUNAVAILABLE for an unreachable host or a model that
// is not pulled, with the "ollama pull" hint). A model whose capabilities
// lack "embedding" is an EINVALID error; hosts reporting different
// dimensions are an EUNAVAILABLE error, since work should wait until an
// admin makes them agree.
func (o *Ollama) Probe(ctx context.Context) (Info, error) {
	if info, ok := o.cachedInfo(); ok {
		return info, nil
	}
	select {
	case o.probeSem <- struct{}{}:
		defer func() { <-o.probeSem }()
	case <-ctx.Done():
		return Info{}, hs.Errorf(hs.EUNAVAILABLE, "embedding: waiting for the model probe: %w", ctx.Err())
	}
	if info, ok := o.cachedInfo(); ok {
		return info, nil
	}
	infos := make([]Info, len(o.pool.hosts))
	errs := make([]error, len(o.pool.hosts))
	var wg sync.WaitGroup
	for i, h := range o.pool.hosts {
		wg.Go(func() { infos[i], errs[i] = o.show(ctx, h) })
	}
	wg.Wait()
	info, err := o.mergeProbes(infos, errs)
	if err != nil {
		return Info{}, err
	}
	o.infoMu.Lock()
	o.info = &info
	o.infoMu.Unlock()
	o.log.Info("embedding model probed", "model", info.Model, "dim", info.Dim,
		"context_length", info.ContextLength, "default_context", info.DefaultContext,
		"num_ctx_sent", o.contextSize(info), "family", info.Family, "prefixes", o.prefixes.Scheme)
	return info, nil
}

func (o *Ollama) cachedInfo() (Info, bool) {
	o.infoMu.Lock()
	defer o.infoMu.Unlock()
	if o.info == nil {
		return Info{}, false
	}
	return *o.info, true
}

// mergeProbes picks the answer of the first host that knows the model and
// checks that the others agree.
func (o *Ollama) mergeProbes(infos []Info, errs []error) (Info, error) {
	first := -1
	for i, h := range o.pool.hosts {
		if errs[i] != nil {
			if isHostError(errs[i]) {
				o.pool.markDown(h)
			}
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		if infos[i].Dim != infos[first].Dim {
			return Info{}, hs.Errorf(hs.EUNAVAILABLE,
				"embedding model %q has %d dimensions on %s but %d on %s: pull the same model on every host",
				o.model, infos[first].Dim, o.pool.hosts[first].name, infos[i].Dim, h.name)
		}
	}
	if first < 0 {
		return Info{}, errs[0]
	}
	for i, h := range o.pool.hosts {
		if errs[i] != nil && len(o.pool.hosts) > 1 {
			o.log.Warn("ollama host cannot serve the embedding model", "host", h.name, "model", o.model, "error", errs[i])
		}
	}
	if caps := infos[first].Capabilities; len(caps) > 0 && !slices.Contains(caps, "embedding") {
		return Info{}, hs.Errorf(hs.EINVALID, "embedding: model %q is not an embedding model (capabilities: %s)",
			o.model, strings.Join(caps, ", "))
	}
	return infos[first], nil
}

// show reads the model's facts from one host.
func (o *Ollama) show(ctx context.Context, h *host) (Info, error) {
	rctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	resp, err := h.client.Show(rctx, &api.ShowRequest{Model: o.model})
	if err != nil {
		return Info{}, classify(ctx, "show", h.name, o.model, err)
	}
	info, err := parseShow(o.model, resp)
	if err != nil {
		return Info{}, hs.Errorf(hs.EINTERNAL, "embedding: ollama show on %s: %w", h.name, err)
	}
	return info, nil
}

// parseShow reads <arch>.embedding_length and <arch>.context_length from
// model_info, where arch is general.architecture.
func parseShow(model string, resp *api.ShowResponse) (Info, error) {
	info := Info{Model: model, Family: resp.Details.Family}
	for _, c := range resp.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	if arch == "" {
		// Fall back to any key with the suffix, for servers that omit it.
		for k := range resp.ModelInfo {
			if a, ok := strings.CutSuffix(k, ".embedding_length"); ok {
				arch = a
				break
			}
		}
	}
	if info.Family == "" {
		info.Family = arch
	}
	dim, ok := intValue(resp.ModelInfo[arch+".embedding_length"])
	if !ok || dim <= 0 {
		return Info{}, fmt.Errorf("model_info has no %s.embedding_length", arch)
	}
	info.Dim = dim
	if n, ok := intValue(resp.ModelInfo[arch+".context_length"]); ok && n > 0 {
		info.ContextLength = n
	}
	info.DefaultContext = numCtxParameter(resp.Parameters)
	return info, nil
}

// numCtxParameter reads num_ctx from /api/show's parameters, one
// "name value" line per Modelfile parameter; 0 when it is not there.
func numCtxParameter(params string) int {
	for line := range strings.Lines(params) {
		f := strings.Fields(line)
		if len(f) != 2 || f[0] != "num_ctx" {
			continue
		}
		if n, err := strconv.ParseFloat(f[1], 64); err == nil && n > 0 && n == math.Trunc(n) {
			return int(n)
		}
	}
	return 0
}

// intValue reads a JSON number decoded into any.
func intValue(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), n == float64(int(n))
	case int:
		return n, true
	case int64:
		return int(n), true
	}
	return 0, false
}
