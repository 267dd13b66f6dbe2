// On every page (frontend/base.html): registers the service worker (/sw.js, frontend/sw.js) where
// the browser has them, for the offline page and Web Push. On the offline page, which the worker
// answers at the address of a page it could not fetch, it loads that page again once that address
// answers.

/** @returns {Promise<ServiceWorkerRegistration | null>} the registration, or null without one */
export async function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register("/sw.js", { scope: "/" });
  } catch (error) {
    // The site works without it (e.g. a browser that allows none in private windows).
    console.warn("The service worker could not be registered.", error);
    return null;
  }
}

/** The longest wait between two tries of an offline page's address (ms). */
const RETRY_MAX_MS = 30000;

/**
 * Load the page again once its address answers: at once if the network came back before this
 * module ran (the `online` event would be missed), else when the browser says it is back, and
 * every few seconds meanwhile, since the network may be up while the site is not.
 */
async function reloadWhenReachable() {
  let wait = 2000;
  for (;;) {
    if (navigator.onLine) {
      try {
        // A HEAD passes the worker by (it answers navigations only), so this asks the site.
        const response = await fetch(location.href, { method: "HEAD", cache: "no-store" });
        if (response.status < 500) {
          location.reload();
          return;
        }
      } catch {
        // Still unreachable: try again below.
      }
    }
    await new Promise((resolve) => {
      window.addEventListener("online", resolve, { once: true });
      setTimeout(resolve, wait);
    });
    wait = Math.min(wait * 2, RETRY_MAX_MS);
  }
}

if (document.getElementById("offline-page")) {
  reloadWhenReachable();
} else {
  registerServiceWorker();
}
