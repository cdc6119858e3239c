#!/bin/bash
# shellcheck shell=bash
#
# devstack plugin of heat-k8s: OS::Kubernetes::* resource types for Heat.
#
# List it after Heat's own plugin in local.conf: Heat's post-config writes
# a fresh /etc/heat/heat.conf, which this plugin's post-config then edits
# with heat-k8s-configure; Heat's engine starts later (extra phase).
# Variables: devstack/settings.

# Save trace setting
_XTRACE_HEAT_K8S=$(set +o | grep xtrace)
set +o xtrace

# shellcheck source=devstack/lib/checks
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks"

function heat_k8s_warn {
    # devstack's warn prints its second argument only: one message.
    local line=$1
    shift
    warn "$line" "$*"
}

function heat_k8s_bin_dir {
    # Where devstack installs console scripts (its global venv or
    # /usr/local/bin); Heat's lib sets HEAT_BIN_DIR to the same.
    echo "${HEAT_BIN_DIR:-$(get_python_exec_prefix)}"
}

function install_heat_k8s {
    # Into the environment heat-engine runs from, as a development install
    # of the checkout devstack cloned (HEAT_K8S_DIR).
    setup_develop "$HEAT_K8S_DIR"
}

function configure_heat_k8s {
    if [[ ! -f $HEAT_CONF ]]; then
        die $LINENO "$HEAT_CONF does not exist: in local.conf, list" \
            "'enable_plugin heat' before 'enable_plugin heat-k8s'"
    fi
    # heat-api's paste filter: the engine fixes heat-api needs (dupkeyfix).
    local args=(--config-file "$HEAT_CONF"
                --api-paste "${HEAT_API_PASTE_FILE:-/etc/heat/api-paste.ini}")
    if [[ -n $HEAT_K8S_DEFAULT_NAMESPACE ]]; then
        args+=(--default-namespace "$HEAT_K8S_DEFAULT_NAMESPACE")
    fi
    if [[ -n $HEAT_K8S_CA_FILE ]]; then
        args+=(--ca-file "$HEAT_K8S_CA_FILE")
    fi
    if [[ $HEAT_K8S_INSECURE == True ]]; then
        args+=(--insecure)
    fi
    if [[ -z $HEAT_K8S_API_URL ]]; then
        heat_k8s_warn $LINENO \
            "HEAT_K8S_API_URL is not set: no Kubernetes endpoint is" \
            "configured or registered; OS::Kubernetes::* resources need" \
            "one (or a cluster property naming a Magnum cluster)"
    elif [[ $HEAT_K8S_REGISTER_ENDPOINT == True ]]; then
        args+=(--catalog --register-endpoint "$HEAT_K8S_API_URL"
               --region "$REGION_NAME" --os-cloud "$HEAT_K8S_OS_CLOUD")
    else
        args+=(--api-url "$HEAT_K8S_API_URL")
    fi
    if [[ $HEAT_K8S_KEYSTONE_AUTH == True ]]; then
        args+=(--kubeconfig "")
    else
        args+=(--kubeconfig "$HEAT_K8S_KUBECONFIG")
    fi
    "$(heat_k8s_bin_dir)/heat-k8s-configure" "${args[@]}"
}

function heat_k8s_keystone_auth_notes {
    # What the cluster needs; it is not managed by devstack.
    if [[ $HEAT_K8S_KEYSTONE_AUTH != True || -z $HEAT_K8S_API_URL ]]; then
        return
    fi
    echo "heat-k8s: the Kubernetes API $HEAT_K8S_API_URL must accept" \
        "Keystone tokens: run k8s-keystone-auth as its token webhook with" \
        "--keystone-url $KEYSTONE_SERVICE_URI/v3 and a sync config" \
        "creating one namespace per project (namespace-format \"%i\") with" \
        "RoleBindings to ClusterRoles named like the Keystone roles" \
        "(member)."
}

function heat_k8s_admin_kubectl {
    # The cluster admin's kubeconfig: read by the isolation steps only.
    kubectl --kubeconfig "$HEAT_K8S_ADMIN_KUBECONFIG" "$@"
}

function apply_heat_k8s_project_isolation {
    # The cluster's project isolation, as the installed package ships it
    # (heat-k8s-configure manifests isolation), as the cluster admin.
    local manifest
    if [[ $HEAT_K8S_PROJECT_ISOLATION != True ]]; then
        return
    fi
    if [[ -z $HEAT_K8S_ADMIN_KUBECONFIG ]]; then
        heat_k8s_warn $LINENO \
            "HEAT_K8S_ADMIN_KUBECONFIG is not set: a cluster" \
            "administrator must apply 'heat-k8s-configure manifests" \
            "isolation', and give each project namespace a NetworkPolicy" \
            "admitting its own pods (see the install guide); until then" \
            "projects reach each other"
        return
    fi
    manifest=$("$(heat_k8s_bin_dir)/heat-k8s-configure" manifests isolation) \
        || die $LINENO "heat-k8s-configure manifests isolation failed"
    heat_k8s_admin_kubectl apply -f - <<<"$manifest" \
        || die $LINENO "could not apply the project isolation: does the" \
            "cluster's network plugin implement BaselineAdminNetworkPolicy?"
    apply_heat_k8s_own_pods_policies
}

function apply_heat_k8s_own_pods_policies {
    # The baseline has no "same namespace" peer: each project namespace
    # needs the NetworkPolicy admitting its own pods. These are the
    # projects that exist now (their namespaces made here as
    # k8s-keystone-auth's syncer makes them, bare); whoever adds a project
    # later applies it there too (the warning says how).
    local policy projects id name
    local later="for a project added later, run 'heat-k8s-configure"
    later+=" manifests own-pods | kubectl -n <namespace> apply -f -'"
    if [[ $HEAT_K8S_DEFAULT_NAMESPACE != "%(project_id)s" ]]; then
        heat_k8s_warn $LINENO \
            "HEAT_K8S_DEFAULT_NAMESPACE is not the project ID: project" \
            "namespaces get no NetworkPolicy admitting their own pods" \
            "here; $later"
        return
    fi
    policy=$("$(heat_k8s_bin_dir)/heat-k8s-configure" manifests own-pods) \
        || die $LINENO "heat-k8s-configure manifests own-pods failed"
    projects=$(openstack --os-cloud "$HEAT_K8S_OS_CLOUD" project list \
                   -f value -c ID -c Name) \
        || die $LINENO "could not list the Keystone projects"
    while read -r id name; do
        if [[ -z $id || $name == "${SERVICE_PROJECT_NAME:-service}" ]]; then
            continue  # no project, or the services' own (no stacks)
        fi
        heat_k8s_admin_kubectl get namespace "$id" >/dev/null 2>&1 \
            || heat_k8s_admin_kubectl create namespace "$id" \
            || die $LINENO "could not create namespace $id (project $name)"
        heat_k8s_admin_kubectl -n "$id" apply -f - <<<"$policy" \
            || die $LINENO "could not apply own-pods in namespace $id"
    done <<<"$projects"
    heat_k8s_warn $LINENO \
        "the namespaces of today's projects admit their own pods;" "$later"
}

function restart_heat_engine_if_running {
    # Heat's plugin starts h-eng in its extra phase, after this plugin's
    # post-config; restart only an engine that already runs (a re-run, or
    # plugins listed in the other order) so it loads the new settings.
    if is_service_enabled h-eng && \
            systemctl is-active --quiet devstack@h-eng.service; then
        restart_service devstack@h-eng
    fi
}

if is_service_enabled heat-k8s; then
    if [[ "$1" == "stack" && "$2" == "pre-install" ]]; then
        check_heat_k8s_settings
    elif [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing heat-k8s"
        install_heat_k8s
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring heat-k8s in $HEAT_CONF"
        # Whatever can fail on the cluster's side comes first.
        check_heat_k8s_cluster
        apply_heat_k8s_project_isolation
        configure_heat_k8s
        restart_heat_engine_if_running
        heat_k8s_keystone_auth_notes
    fi
    # unstack, clean: nothing of ours runs; the package and the catalog
    # entry go with the Heat environment and Keystone.
fi

# Restore xtrace
$_XTRACE_HEAT_K8S
