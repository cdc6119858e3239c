# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""A stack's Kubernetes objects, read as the caller.

Heat tells which OS::Kubernetes::* resources a stack has (nested stacks
included) and which object each one manages; the object itself is read
from the Kubernetes API with the caller's own Keystone token as bearer,
the endpoint found as the plugin finds it: the Keystone catalog, unless
given. An object is Heat's only when its uid is the resource's physical id.
"""

from urllib import parse

from keystoneauth1 import exceptions as ks_exceptions
from kubernetes import client as k8s_client

from heat_k8s.client import kube
from heat_k8s.export import order

ORCHESTRATION = 'orchestration'
CATALOG_SERVICE_TYPE = 'kubernetes'  # [kubernetes] catalog_service_type
NESTED_DEPTH = 100  # Heat caps it at its max_nested_stack_depth


class ExportError(Exception):
    """Why the export cannot be made, in one line for the user."""


def kube_configuration(session, url, ca_file=None):
    """A Kubernetes client configuration using the session's token and CA.

    ca_file: the API's CA bundle when it is not the cloud's. The token is
    fetched before every request, so a long export outlives a token that
    expires (keystoneauth reauthenticates). The token alone says who asks:
    a client certificate of clouds.yaml is not sent (the API server could
    authenticate it instead), and a URL that is not https is refused.
    """
    if parse.urlsplit(url).scheme != 'https':
        raise ExportError('the Kubernetes API %s is not https: the Keystone '
                          'token would travel in clear' % url)
    conf = k8s_client.Configuration()
    conf.host = url.rstrip('/')
    conf.verify_ssl = bool(ca_file or session.verify)
    if ca_file or isinstance(session.verify, str):
        conf.ssl_ca_cert = ca_file or session.verify
    conf.api_key = {'authorization': ''}
    conf.api_key_prefix = {'authorization': 'Bearer'}

    def refresh(configuration):
        configuration.api_key['authorization'] = session.get_token()
    conf.refresh_api_key_hook = refresh
    return conf


class StackReader:
    """Heat's view of a stack and the live objects of its resources."""

    def __init__(self, session, interface='public', region_name=None,
                 kubernetes_url=None, kubernetes_cacert=None,
                 service_type=CATALOG_SERVICE_TYPE):
        self.session = session
        self.filter = {'interface': interface, 'region_name': region_name}
        self.kubernetes_url = kubernetes_url
        self.kubernetes_cacert = kubernetes_cacert
        self.service_type = service_type
        self._kube = None

    def _heat(self, url):
        try:
            response = self.session.get(
                url, raise_exc=False,
                endpoint_filter=dict(self.filter, service_type=ORCHESTRATION))
        except ks_exceptions.ClientException as exc:
            raise ExportError('Heat unreachable: %s' % exc) from None
        return response

    def resources(self, stack):
        """Heat's resources of the stack and its nested stacks."""
        response = self._heat('/stacks/%s/resources?nested_depth=%d' % (
            parse.quote(stack, safe=''), NESTED_DEPTH))
        if response.status_code == 404:
            raise ExportError('stack %s not found (or not visible to this '
                              'project)' % stack)
        if response.status_code >= 400:
            raise ExportError('Heat refused to list the resources of stack '
                              '%s: HTTP %s' % (stack, response.status_code))
        return response.json().get('resources') or []

    def identities(self, resource):
        """[(apiVersion, kind, name, namespace, uid)] of the objects a
        resource manages, from its `show` attribute (see shown_objects).
        """
        self_link = [link['href'] for link in resource.get('links') or ()
                     if link.get('rel') == 'self']
        response = self._heat(self_link[0]) if self_link else None
        if response is None or response.status_code >= 400:
            raise ExportError('%s: Heat does not show the resource' %
                              describe(resource))
        shown = response.json()['resource'].get('attributes') or {}
        if not shown.get('kind') or (not shown.get('metadata') and
                                     shown['kind'] != 'List'):
            raise ExportError('%s: its Kubernetes object does not exist '
                              '(run `openstack stack check`, then update '
                              'the stack)' % describe(resource))
        return shown_objects(shown, resource.get('physical_resource_id'))

    def kube(self):
        if self._kube is None:
            url = self.kubernetes_url
            if not url:
                try:
                    url = self.session.get_endpoint(
                        service_type=self.service_type, **self.filter)
                except ks_exceptions.ClientException as exc:
                    raise ExportError('no Kubernetes endpoint: %s; give '
                                      '--kubernetes-url' % exc) from None
                if not url:
                    raise ExportError(
                        'no %r endpoint in the Keystone catalog; give '
                        '--kubernetes-url' % self.service_type)
            api = k8s_client.ApiClient(kube_configuration(
                self.session, url, self.kubernetes_cacert))
            self._kube = kube.Kube(api)
        return self._kube

    def live(self, resource):
        """The live objects a resource manages, checked by their uids."""
        client = self.kube()
        found = []
        for api_version, kind, name, namespace, uid in self.identities(
                resource):
            try:
                obj = client.get(api_version, kind, name, namespace)
            except kube.ApiError as exc:
                raise ExportError('%s: %s' % (describe(resource),
                                              exc)) from None
            live_uid = (obj or {}).get('metadata', {}).get('uid')
            if live_uid != uid:
                raise ExportError(
                    '%s: %s %s at %s is not the object Heat manages (uid '
                    '%s, Heat has %s); is it in another cluster? give '
                    '--kubernetes-url' % (describe(resource), kind, name,
                                          client.endpoint, live_uid, uid))
            found.append(obj)
        return found

    def objects(self, stack):
        """[(resource, live object)] of the stack, in dependency order."""
        found = order.kubernetes_resources(self.resources(stack))
        if not found:
            raise ExportError('stack %s has no Kubernetes resources' % stack)
        return [(resource, obj) for resource in found
                for obj in self.live(resource)]


def shown_objects(shown, physical_id):
    """[(apiVersion, kind, name, namespace, uid)] of a `show` attribute.

    One object, whose uid is the resource's physical id; or a List (what
    OS::Kubernetes::Objects shows) of the objects Heat recorded, each with
    its uid.
    """
    if shown.get('kind') == 'List':
        return [(item['apiVersion'], item['kind'], item['metadata']['name'],
                 item['metadata'].get('namespace'),
                 item['metadata'].get('uid'))
                for item in shown.get('items') or ()]
    meta = shown['metadata']
    return [(shown['apiVersion'], shown['kind'], meta['name'],
             meta.get('namespace'), physical_id)]


def describe(resource):
    """'resource <parent>.<name> (<type>)': which one, nested or not."""
    name = resource.get('resource_name')
    parent = resource.get('parent_resource')
    return 'resource %s (%s)' % ('%s.%s' % (parent, name) if parent else name,
                                 resource.get('resource_type'))
