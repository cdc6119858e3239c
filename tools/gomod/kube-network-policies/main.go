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
//
// It also enforces the BaselineAdminNetworkPolicy (the operator's project
// isolation, heat_k8s/manifests/project-isolation.yaml) and gives every project namespace,
// present and future, the NetworkPolicy that admits its own pods: the
// baseline refuses project namespaces to each other, its own included, and
// a NetworkPolicy of the namespace (this default, or the members' own)
// takes precedence over it.
package main

import (
	"context"
	"flag"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/kube-network-policies/pkg/networkpolicy"
	npaclient "sigs.k8s.io/network-policy-api/pkg/client/clientset/versioned"
	npainformers "sigs.k8s.io/network-policy-api/pkg/client/informers/externalversions"
	policyinformers "sigs.k8s.io/network-policy-api/pkg/client/informers/externalversions/apis/v1alpha1"
)

// ownPodsPolicy is the NetworkPolicy a project namespace starts with: its
// pods admit connections from pods of the same namespace and of the shared
// namespaces, as heat_k8s/manifests/own-pods-policy.yaml says, but from
// the namespace's privileged pods (a compute node hosting guests), which
// only the services that serve them admit.
func ownPodsPolicy(name string, shared *metav1.LabelSelector) *networkingv1.NetworkPolicy {
	unprivileged := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
		Key: "heat-k8s.io/privileged", Operator: metav1.LabelSelectorOpDoesNotExist}}}
	from := []networkingv1.NetworkPolicyPeer{{PodSelector: unprivileged}}
	if shared != nil {
		from = append(from, networkingv1.NetworkPolicyPeer{NamespaceSelector: shared})
	}
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "kube-network-policies"},
		},
		Spec: networkingv1.NetworkPolicySpec{
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: from}},
		},
	}
}

// defaultPolicies creates ownPodsPolicy in each namespace the selector
// matches, once: members may change or delete it (it opens only their own
// namespace, and without it the baseline refuses even their own pods).
func defaultPolicies(ctx context.Context, client kubernetes.Interface, selector labels.Selector, policy *networkingv1.NetworkPolicy) cache.ResourceEventHandler {
	ensure := func(ns *corev1.Namespace) {
		if !selector.Matches(labels.Set(ns.Labels)) || ns.DeletionTimestamp != nil {
			return
		}
		// Retried: a namespace's first pods wait on it.
		err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := client.NetworkingV1().NetworkPolicies(ns.Name).Create(ctx, policy, metav1.CreateOptions{FieldManager: "kube-network-policies"})
			if err == nil || apierrors.IsAlreadyExists(err) || apierrors.IsNotFound(err) {
				return true, nil
			}
			klog.Errorf("NetworkPolicy %s/%s: %v", ns.Name, policy.Name, err)
			return false, nil
		})
		if err != nil {
			klog.Errorf("NetworkPolicy %s/%s not created: %v", ns.Name, policy.Name, err)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if ns, ok := obj.(*corev1.Namespace); ok {
				go ensure(ns)
			}
		},
		// A namespace an operator stops sharing gets the default too.
		UpdateFunc: func(old, obj interface{}) {
			was, okOld := old.(*corev1.Namespace)
			ns, ok := obj.(*corev1.Namespace)
			if ok && okOld && !selector.Matches(labels.Set(was.Labels)) {
				go ensure(ns)
			}
		},
	}
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file of the controller's Kubernetes user")
	nodeName := flag.String("hostname-override", "", "the Node whose pods this controller guards (default: the host name)")
	queueID := flag.Int("nfqueue-id", 100, "the netfilter queue the node's rules send new connections to")
	failOpen := flag.Bool("fail-open", false, "accept a packet the controller cannot parse, and packets while the queue is full")
	metrics := flag.String("metrics-bind-address", "", "address of the /metrics endpoint (empty: none)")
	baseline := flag.Bool("baseline-admin-network-policy", false, "enforce the BaselineAdminNetworkPolicy (its CRD must be installed)")
	projects := flag.String("project-namespaces", "", "label selector of the project namespaces, each of which gets the NetworkPolicy --own-pods-policy (empty: none)")
	shared := flag.String("shared-namespaces", "", "label selector of the namespaces whose pods every project namespace admits")
	ownPods := flag.String("own-pods-policy", "allow-same-namespace", "name of the NetworkPolicy admitting a project namespace's own pods")
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
	// No AdminNetworkPolicy: its domain names need a second queue fed by
	// an nftables rule this kernel cannot load. The kernel is 6.12 or
	// newer (no DNS race workaround).
	cfg := networkpolicy.Config{FailOpen: *failOpen, QueueID: *queueID, NodeName: *nodeName,
		BaselineAdminNetworkPolicy: *baseline}
	var npa npaclient.Interface
	var npaFactory npainformers.SharedInformerFactory
	var nodes coreinformers.NodeInformer
	var banp policyinformers.BaselineAdminNetworkPolicyInformer
	if *baseline {
		// Not protobuf: custom resources are JSON only.
		clientset, err := npaclient.NewForConfig(config)
		if err != nil {
			klog.Fatalf("network-policy-api client: %v", err)
		}
		npa = clientset
		npaFactory = npainformers.NewSharedInformerFactory(clientset, 0)
		nodes = factory.Core().V1().Nodes()
		banp = npaFactory.Policy().V1alpha1().BaselineAdminNetworkPolicies()
	}
	controller, err := networkpolicy.NewController(
		client,
		factory.Networking().V1().NetworkPolicies(),
		factory.Core().V1().Namespaces(),
		factory.Core().V1().Pods(),
		nodes, npa, nil, banp, cfg)
	if err != nil {
		klog.Fatalf("controller: %v", err)
	}
	if *projects != "" {
		selector, err := labels.Parse(*projects)
		if err != nil {
			klog.Fatalf("--project-namespaces: %v", err)
		}
		var sharedSelector *metav1.LabelSelector
		if *shared != "" {
			if sharedSelector, err = metav1.ParseToLabelSelector(*shared); err != nil {
				klog.Fatalf("--shared-namespaces: %v", err)
			}
		}
		_, err = factory.Core().V1().Namespaces().Informer().AddEventHandler(
			defaultPolicies(ctx, client, selector, ownPodsPolicy(*ownPods, sharedSelector)))
		if err != nil {
			klog.Fatalf("namespace handler: %v", err)
		}
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
	if npaFactory != nil {
		npaFactory.Start(ctx.Done())
	}
	<-done
}
