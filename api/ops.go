package api

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/graphmem/graphmem/api/wire"
	"github.com/graphmem/graphmem/entity"
)

// readyTimeout bounds a readiness check, so a hung store answers 503
// rather than hanging the probe.
const readyTimeout = 2 * time.Second

func (s *Server) registerOpsRoutes() {
	e := s.engine
	e.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, Health{Status: "ok"}) })
	e.GET("/readyz", s.ready)
	// The metrics are the whole server's, of no one scope; they need a
	// key like /v1 (any key: they name no scope or key), so that a server
	// reachable by others tells its traffic only to those it serves.
	e.GET("/metrics", s.authenticate, gin.WrapH(promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg})))
	e.GET("/openapi.json", s.serveOpenAPI(&openAPIJSON{}))
	s.Document(
		Endpoint{Method: "GET", Path: "/healthz", Summary: "Liveness: the process answers.", Tag: "operations", Public: true, Response: Health{}},
		Endpoint{Method: "GET", Path: "/readyz", Summary: "Readiness: the store answers; lag tells how far the search and vector indexes are behind it.", Tag: "operations", Public: true, Response: Health{},
			Errors: []int{http.StatusServiceUnavailable}},
		Endpoint{Method: "GET", Path: "/metrics", Tag: "operations",
			Summary:  "Prometheus metrics of the whole server (no scope or key names); with API keys configured it needs one, any of them, as /v1 does.",
			Response: "", ResponseType: "text/plain"},
		Endpoint{Method: "GET", Path: "/openapi.json", Summary: "This OpenAPI 3.1 document.", Tag: "operations", Public: true,
			Response: map[string]any{}},
	)
}

func (s *Server) ready(c *gin.Context) {
	ctx, cancel := context.WithTimeout(c.Request.Context(), readyTimeout)
	defer cancel()
	check := s.opts.Ready
	if check == nil {
		if s.svc == nil || s.svc.Store == nil {
			Error(c, entity.Errorf(entity.EUNAVAILABLE, "no store"))
			return
		}
		check = s.svc.Store.Ping
	}
	if err := check(ctx); err != nil {
		if entity.ErrorCode(err) != entity.EUNAVAILABLE {
			logger(c).Error("readiness check failed", "error", err)
			err = entity.Errorf(entity.EUNAVAILABLE, "not ready")
		}
		Error(c, err)
		return
	}
	h := Health{Status: "ready"}
	for name, lag := range s.opts.Followers {
		if h.Lag == nil {
			h.Lag = map[string]wire.Lag{}
		}
		h.Lag[name] = wire.Lag(lag())
	}
	c.JSON(http.StatusOK, h)
}
