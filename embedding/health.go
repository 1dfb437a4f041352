package embedding

import (
	"context"
	"slices"
	"sync"

	hs "github.com/hybrid-search/hybridsearch"
)

// HostsHealth asks every host (base URL, without credentials) now, concurrently, whether it serves the
// model (/api/show, which also tells an unreachable host from one that
// lacks the model), and returns one entry per configured host, in order.
// A host whose model has another dimension than the others', or is not an
// embedding model, is not OK. It does not change which hosts get work.
func (o *Ollama) HostsHealth(ctx context.Context) []hs.HostHealth {
	probed, haveProbe := o.cachedInfo()
	out := make([]hs.HostHealth, len(o.pool.hosts))
	var wg sync.WaitGroup
	for i, h := range o.pool.hosts {
		wg.Go(func() {
			out[i] = hs.HostHealth{Host: h.name}
			info, err := o.show(ctx, h)
			switch {
			case err != nil:
			case haveProbe && info.Dim != probed.Dim:
				err = hs.Errorf(hs.EUNAVAILABLE, "embedding model %q has %d dimensions on %s but %d on the others: pull the same model on every host",
					o.model, info.Dim, h.name, probed.Dim)
			case len(info.Capabilities) > 0 && !slices.Contains(info.Capabilities, "embedding"):
				err = hs.Errorf(hs.EINVALID, "embedding: model %q on %s is not an embedding model", o.model, h.name)
			}
			if err != nil {
				out[i].Error = hs.ErrorMessage(err)
				return
			}
			out[i].OK = true
		})
	}
	wg.Wait()
	return out
}
