"use strict";
// The token is posted once and comes back as an HttpOnly cookie; it is
// never kept in the page, the URL or local storage.
document.getElementById("login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const input = document.getElementById("token");
  const res = await fetch("login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token: input.value }),
  });
  input.value = "";
  if (res.ok) {
    location.replace("./");
  } else {
    document.getElementById("login-error").textContent = (await res.text()).trim();
  }
});
if (new URLSearchParams(location.search).has("failed")) {
  document.getElementById("login-error").textContent = "That token was wrong.";
}
