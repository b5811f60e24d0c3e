package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/graphmem/graphmem/ontology"
)

func (s *Server) registerOntologyRoutes() {
	s.v1.GET("/ontology", s.getOntology)
	s.Document(Endpoint{Method: "GET", Path: "/v1/ontology", Tag: "operations",
		Summary:  "The entity types and predicates the server knows: cardinality, synonyms, TTL; and what becomes of other predicates.",
		Response: ontology.Description{}})
}

func (s *Server) getOntology(c *gin.Context) {
	if _, err := parseQuery(c); err != nil {
		Error(c, err)
		return
	}
	onto := s.svc.Ontology
	if onto == nil {
		onto = ontology.Default()
	}
	c.JSON(http.StatusOK, onto.Describe())
}
