// The API docs page: Swagger UI (from the swagger-ui-bundle package) on /openapi.json.
window.ui = window.SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  tryItOutEnabled: false,
});
