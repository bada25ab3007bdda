// The events feature's public entry.
export { EventsPage } from './components/events-page.tsx';
