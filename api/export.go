package api

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/memory"
)

func (s *Server) registerExportRoutes() {
	g := s.v1
	g.GET("/export", s.export)
	g.POST("/import", s.importScope)
	s.Document(
		Endpoint{Method: "GET", Path: "/v1/export", Tag: "export",
			Summary:  "Everything in the scope as JSON Lines (tombstones, entities, episodes, facts with both time axes), for a lossless round trip.",
			Response: memory.Record{}, ResponseType: NDJSON},
		Endpoint{Method: "POST", Path: "/v1/import", Tag: "export",
			Summary: fmt.Sprintf("Load an export into the scope, keeping ids and times; tombstoned facts stay out. "+
				"Each line holds one record of at most %d bytes, %d values and %d objects, checked against the API's limits "+
				"as it is read (an episode's content is at most %d bytes); the entities, episodes and facts a fact refers to "+
				"must be in the import or already in the scope, and no two episodes may share an idempotency key. A refused "+
				"import writes nothing: 400 names the line and the field (line[3].fact.subject_id); 409 says which episodes' "+
				"idempotency keys another episode of the scope already holds.",
				memory.MaxRecordBytes, memory.MaxRecordValues, memory.MaxRecordObjects, entity.MaxEpisodeBytes),
			Body: memory.Record{}, BodyType: NDJSON, Response: memory.ImportResult{},
			Errors: []int{http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable}},
	)
}

// countingWriter knows whether the answer has started.
type countingWriter struct {
	w io.Writer
	n int64
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	return n, err
}

func (s *Server) export(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	c.Header("Content-Type", NDJSON)
	c.Header("Content-Disposition", `attachment; filename="graphmem-export.jsonl"`)
	cw := &countingWriter{w: c.Writer}
	err := s.svc.Export(c.Request.Context(), Scope(c), cw)
	if err == nil {
		c.Status(http.StatusOK)
		return
	}
	if cw.n == 0 {
		c.Header("Content-Type", "")
		Error(c, err)
		return
	}
	// Part of the export is already on the wire: the only honest signal
	// left is to cut the connection, so the client sees a truncated body
	// rather than a complete-looking file.
	logger(c).Error("export failed mid-stream", "error", err, "bytes", cw.n)
	panic(http.ErrAbortHandler)
}

// limitedReader reports whether a read went past the limit or the
// deadline, since the import decoder turns errors into messages.
type limitedReader struct {
	r                 io.Reader
	exceeded, expired bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		l.exceeded = true
	case errors.Is(err, os.ErrDeadlineExceeded):
		l.expired = true
	}
	return n, err
}

func (s *Server) importScope(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	body := bufio.NewReader(http.MaxBytesReader(c.Writer, c.Request.Body, s.opts.MaxImportBytes))
	if _, err := body.Peek(1); err == io.EOF {
		Error(c, entity.Errorf(entity.EINVALID, "request body is empty: send the JSON Lines of an export"))
		return
	}
	lr := &limitedReader{r: body}
	res, err := s.svc.Import(c.Request.Context(), Scope(c), lr)
	if lr.expired {
		err = errBodyTimeout
	}
	if lr.exceeded {
		err = &entity.Error{Code: entity.ETOOLARGE, Message: fmt.Sprintf(
			"import exceeds %d bytes; nothing was imported", s.opts.MaxImportBytes)}
	}
	if err != nil {
		Error(c, err)
		return
	}
	c.JSON(http.StatusOK, res)
}
