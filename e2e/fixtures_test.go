package e2e

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

func testfixFixtures(t *testing.T) string { return testfix.Fixtures(t) }
func testfixORT(t *testing.T) string      { return testfix.ORTRunner(t) }
