// Move the links of rewritten facts whose subject or object changed (rare):
// drop the old link, link the new entity when it is stored.
//
// $rows: [{id, subject, object, subjectMoved, objectMoved}], subject and
// object the fact's new ids (object null for a literal).
CYPHER replan=skip
UNWIND $rows AS r
MATCH (f:Fact {scope: $scope, id: r.id})
CALL {
  WITH f, r
  UNWIND CASE WHEN r.subjectMoved THEN [f] ELSE [] END AS moved
  MATCH ()-[x:SUBJECT_OF]->(moved)
  DELETE x
}
CALL {
  WITH f, r
  UNWIND CASE WHEN r.objectMoved THEN [f] ELSE [] END AS moved
  MATCH (moved)-[x:OBJECT]->()
  DELETE x
}
CALL {
  WITH f, r
  UNWIND CASE WHEN r.subjectMoved THEN [r.subject] ELSE [] END AS subjectID
  MATCH (s:Entity {scope: $scope, id: subjectID})
  CREATE (s)-[:SUBJECT_OF]->(f)
}
CALL {
  WITH f, r
  UNWIND CASE WHEN r.objectMoved AND r.object IS NOT NULL THEN [r.object] ELSE [] END AS objectID
  MATCH (o:Entity {scope: $scope, id: objectID})
  CREATE (f)-[:OBJECT]->(o)
}
RETURN count(*) AS n
