// On every page (frontend/base.html): registers the service worker (/sw.js, frontend/sw.js) where
// the browser has them, for the offline page and Web Push. On the offline page, which the worker
// answers at the address of a page it could not fetch, it loads that page again once the network
// is back.

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

if (document.getElementById("offline-page")) {
  window.addEventListener("online", () => location.reload());
} else {
  registerServiceWorker();
}
