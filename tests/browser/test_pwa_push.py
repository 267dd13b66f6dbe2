"""Web Push on the settings page, in Chromium: "Notify me on this device" subscribes the browser
with the site's key and registers it with the server; "Stop notifying this device" undoes both.

Chromium has no Push API in Playwright's contexts (they are incognito: crbug.com/41124656) and
would subscribe through Google's push service, so the page's PushManager is a stand-in here that
keeps one subscription as a browser does, with a real P-256 key pair; the page module, the
service worker's registration and the server's API are the site's own.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from greycircle.push import keys
from greycircle.push.models import WebPushSubscription
from tests.factories import PASSWORD, UserFactory
from tests.push.push_service import Browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The browser's side of PushManager: subscribe() with the site's key, getSubscription(), and the
# subscription's toJSON() and unsubscribe(); what subscribe() was given is in window.pushSubscribed.
PUSH_MANAGER = """
(() => {
  const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
  let current = null;
  window.pushSubscribed = [];
  PushManager.prototype.getSubscription = async function () { return current; };
  PushManager.prototype.subscribe = async function (options) {
    window.pushSubscribed.push({
      userVisibleOnly: options.userVisibleOnly,
      key: b64url(options.applicationServerKey),
    });
    const ecdh = { name: "ECDH", namedCurve: "P-256" };
    const pair = await crypto.subtle.generateKey(ecdh, true, ["deriveBits"]);
    const p256dh = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
    const auth = b64url(crypto.getRandomValues(new Uint8Array(16)));
    const endpoint = `https://push.example.net/send/${auth}`;
    current = {
      endpoint,
      expirationTime: null,
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
      unsubscribe: async () => { current = null; return true; },
    };
    return current;
  };
})();
"""


def settings_page(page: Page) -> None:
    page.context.grant_permissions(["notifications"])
    page.add_init_script(PUSH_MANAGER)
    page.goto("/settings/")


def test_notify_me_on_this_device_subscribes_it_and_stop_undoes_it(page, log_in):
    wes = UserFactory(username="wes")
    log_in(page, "wes", PASSWORD)
    settings_page(page)
    status = page.locator("#push-status")

    page.get_by_role("button", name="Notify me on this device").click()

    expect(status).to_have_text("This device will be notified.")
    expect(page.get_by_role("button", name="Notify me on this device")).to_be_hidden()
    assert page.evaluate("window.pushSubscribed") == [
        {"userVisibleOnly": True, "key": keys.vapid_public_key()}
    ]
    endpoint = page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.pushManager.getSubscription())"
        ".then((subscription) => subscription.endpoint)"
    )
    (kept,) = WebPushSubscription.objects.filter(user=wes)
    assert kept.endpoint == endpoint

    page.get_by_role("button", name="Stop notifying this device").click()

    expect(status).to_have_text("This device will not be notified any more.")
    expect(page.get_by_role("button", name="Notify me on this device")).to_be_visible()
    assert not WebPushSubscription.objects.filter(user=wes).exists()


# In the service worker: its `pushsubscriptionchange` listener, given the browser's new
# subscription `json` (the event made here: Chromium cannot be made to fire one); resolves when
# the listener's work is done.
SUBSCRIPTION_CHANGED = """async (json) => {
    const event = new Event("pushsubscriptionchange");
    const subscription = { endpoint: json.endpoint, expirationTime: null, toJSON: () => json };
    let done = null;
    Object.defineProperties(event, {
        newSubscription: { value: subscription },
        oldSubscription: { value: null },
        waitUntil: { value: (promise) => { done = promise; } },
    });
    self.dispatchEvent(event);
    if (done === null) throw new Error("no listener waited for the renewal");
    await done;
}"""

RENEWAL_KEPT = """caches.open("greycircle-push")
    .then((cache) => cache.match("/push-renewal.json"))
    .then((kept) => kept.json())"""


def test_the_service_worker_renews_a_subscription_the_push_service_changed(page, log_in):
    wes = UserFactory(username="wes")
    log_in(page, "wes", PASSWORD)
    settings_page(page)
    page.get_by_role("button", name="Notify me on this device").click()
    expect(page.locator("#push-status")).to_have_text("This device will be notified.")
    (old,) = WebPushSubscription.objects.filter(user=wes)
    kept = page.evaluate(RENEWAL_KEPT)
    assert (kept["endpoint"], kept["key"]) == (old.endpoint, keys.vapid_public_key())
    new = Browser(endpoint="https://push.example.net/send/renewed").subscription()

    # The worker's fetch sends no cookie nor CSRF token: the renewal token is the credential.
    (worker,) = page.context.service_workers
    worker.evaluate(SUBSCRIPTION_CHANGED, new)

    (renewed,) = WebPushSubscription.objects.filter(user=wes)
    assert (renewed.pk, renewed.endpoint, renewed.auth) == (
        old.pk,
        new["endpoint"],
        new["keys"]["auth"],
    )
    now_kept = page.evaluate(RENEWAL_KEPT)
    assert now_kept["endpoint"] == new["endpoint"]
    assert now_kept["renewal_token"] != kept["renewal_token"]
