// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

// Command coredns is CoreDNS with only the plugins the local cloud's
// cluster DNS uses, so the build does not pull every cloud SDK upstream
// links in for plugins we never configure.
package main

import (
	"slices"
	"strings"

	"github.com/coredns/caddy"
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	// The plugins a Corefile of this binary may use.
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

// registeredDirectives keeps upstream's execution order but only the
// directives whose plugin is linked in, so an unused one is an unknown
// directive in a Corefile rather than a silently ignored line.
func registeredDirectives() []string {
	registered := map[string]bool{}
	for _, name := range caddy.ListPlugins()["others"] {
		if plugin, ok := strings.CutPrefix(name, "dns."); ok {
			registered[plugin] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(dnsserver.Directives),
		func(d string) bool { return !registered[d] })
}

func main() {
	dnsserver.Directives = registeredDirectives()
	coremain.Run()
}
