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

// Command kube-network-policies runs the NetworkPolicy controller of
// sigs.k8s.io/kube-network-policies as a process of the local cloud's
// node: upstream's main reads only the in-cluster configuration of a pod,
// this one a kubeconfig file. The controller decides each new connection
// of a pod in userspace, from the packets the node's iptables rules send
// to its netfilter queue (tools/lc/kubernetes/netpol.py says why iptables).
package main

import (
	"context"
	"flag"
	"net/http"
	"os"
	"os/signal"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sys/unix"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/kube-network-policies/pkg/networkpolicy"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file of the controller's Kubernetes user")
	nodeName := flag.String("hostname-override", "", "the Node whose pods this controller guards (default: the host name)")
	queueID := flag.Int("nfqueue-id", 100, "the netfilter queue the node's rules send new connections to")
	failOpen := flag.Bool("fail-open", false, "accept a packet the controller cannot parse, and packets while the queue is full")
	metrics := flag.String("metrics-bind-address", "", "address of the /metrics endpoint (empty: none)")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), unix.SIGINT, unix.SIGTERM)
	defer stop()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatalf("reading %q: %v", *kubeconfig, err)
	}
	config.UserAgent = "kube-network-policies"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		klog.Fatalf("client: %v", err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	// No AdminNetworkPolicy: nothing of the node or network-policy-api
	// is read, and the kernel is 6.12 or newer (no DNS race workaround).
	controller, err := networkpolicy.NewController(
		client,
		factory.Networking().V1().NetworkPolicies(),
		factory.Core().V1().Namespaces(),
		factory.Core().V1().Pods(),
		nil, nil, nil, nil,
		networkpolicy.Config{
			FailOpen: *failOpen,
			QueueID:  *queueID,
			NodeName: *nodeName,
		})
	if err != nil {
		klog.Fatalf("controller: %v", err)
	}
	if *metrics != "" {
		http.Handle("/metrics", promhttp.Handler())
		go func() { utilruntime.HandleError(http.ListenAndServe(*metrics, nil)) }()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := controller.Run(ctx); err != nil {
			klog.Errorf("controller stopped: %v", err)
			os.Exit(1)
		}
	}()
	factory.Start(ctx.Done())
	<-done
}
